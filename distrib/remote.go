package distrib

import (
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
	host, portText, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: %w", listen, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("listen address %q: the port must be a number in [0, 65535]", listen)
	}
	if port == 0 {
		// protoactor's remote panics when it cannot listen and does not
		// say which port it took: find one here.
		l, err := net.Listen("tcp", listen)
		if err != nil {
			return nil, fmt.Errorf("listen on %s: %w", listen, err)
		}
		port = l.Addr().(*net.TCPAddr).Port
		l.Close()
	} else if l, err := net.Listen("tcp", listen); err != nil {
		return nil, fmt.Errorf("listen on %s: %w", listen, err)
	} else {
		l.Close()
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
