package distrib

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/remote"
)

// Actor names: the coordinator's clock actor, each member's actor and its
// liveness actor (which takes the coordinator's heartbeats), found by
// address and name.
const (
	coordinatorName = "coordinator"
	memberName      = "member"
	aliveName       = "member-alive"
)

// node is one process's actor system with protoactor's remote layer on.
type node struct {
	system *actor.ActorSystem
	remote *remote.Remote
	log    *slog.Logger
}

// startNode starts an actor system listening on listen (host:port; port
// 0 picks a free one), advertised to peers as advertise when not empty.
// Bind errors are returned, not panicked.
func startNode(listen, advertise string, log *slog.Logger) (*node, error) {
	host, port, err := tryListen(listen)
	if err != nil {
		return nil, err
	}
	// protoactor logs a lost connection at every orderly end of a run, as
	// an error; the run reports what matters itself.
	quiet := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError + 4}))
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return quiet }))
	var opts []remote.ConfigOption
	if advertise != "" {
		opts = append(opts, remote.WithAdvertisedHost(advertise))
	}
	r := remote.NewRemote(sys, remote.Configure(host, port, opts...))
	r.Start()
	return &node{system: sys, remote: r, log: log}, nil
}

// tryListen checks a listen address (host:port, the port in [0, 65535])
// and that it can be listened on; it returns its host and port, a free
// one for port 0. protoactor's remote panics when it cannot listen and
// does not say which port it took: both are found here.
func tryListen(listen string) (host string, port int, err error) {
	host, portText, err := net.SplitHostPort(listen)
	if err != nil {
		return "", 0, fmt.Errorf("%q is not a host:port: %w", listen, unwrapAddr(err))
	}
	port, err = strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("%s: port %s is not allowed: must be a number in [0, 65535] (0: a free one)", listen, portText)
	}
	l, err := net.Listen("tcp", listen)
	if err != nil {
		return "", 0, fmt.Errorf("%s: cannot listen there: %w", listen, unwrapAddr(err))
	}
	if port == 0 {
		port = l.Addr().(*net.TCPAddr).Port
	}
	l.Close()
	return host, port, nil
}

// CheckListen checks a listen address as a run starting there would, and
// that it can be listened on now.
func CheckListen(listen string) error {
	_, _, err := tryListen(listen)
	return err
}

// CheckPeer checks the address of another process (the coordinator a
// member joins, the address a process advertises): host:port with a host
// and the port in [1, 65535]. It does not look the host up.
func CheckPeer(addr string) (host string, err error) {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("%q is not a host:port: %w", addr, unwrapAddr(err))
	}
	if host == "" {
		return "", fmt.Errorf("%q has no host: a host:port is needed, e.g. 127.0.0.1:7700", addr)
	}
	if port, err := strconv.Atoi(portText); err != nil || port < 1 || port > 65535 {
		return "", fmt.Errorf("%s: port %s is not allowed: must be a number in [1, 65535]", addr, portText)
	}
	return host, nil
}

// unwrapAddr drops the address net's errors repeat.
func unwrapAddr(err error) error {
	var ae *net.AddrError
	if errors.As(err, &ae) {
		return errors.New(ae.Err)
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err
	}
	return err
}

// address is where peers reach this node.
func (n *node) address() string { return n.system.Address() }

func (n *node) stop() {
	n.remote.Shutdown(false)
	n.system.Shutdown()
}

// IsLoopback reports whether the host of a listen address binds loopback
// only.
func IsLoopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
