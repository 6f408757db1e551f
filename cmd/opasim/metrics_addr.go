package main

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"

	"github.com/opasim/opasim/monitor"
)

// serveMetrics serves m at the address given to --metrics-addr. Each way
// the address can be wrong (malformed, port out of range, unknown host,
// address in use or not of this machine) is its own error naming the flag
// and the value; all of them are bad input.
func serveMetrics(value string, m *monitor.Metrics) (*monitor.MetricsServer, error) {
	addr, err := metricsListenAddr(value)
	if err != nil {
		return nil, err
	}
	s, err := monitor.ServeMetrics(addr, m)
	if err != nil {
		return nil, listenError(value, err)
	}
	return s, nil
}

// metricsListenAddr is where to listen for --metrics-addr value: a
// host-less address (":9464") stays on loopback; 0.0.0.0 or another host
// must be given explicitly. The port must be a number from 0 to 65535 and
// the host must resolve.
func metricsListenAddr(value string) (string, error) {
	host, port, err := net.SplitHostPort(value)
	if err != nil {
		reason := err.Error()
		var ae *net.AddrError
		if errors.As(err, &ae) {
			reason = ae.Err
		}
		return "", fmt.Errorf("--metrics-addr: %q is malformed (%s): must be host:port, e.g. 127.0.0.1:9464, or :9464 for loopback", value, reason)
	}
	p, err := metricsPort(value, port)
	if err != nil {
		return "", err
	}
	if host == "" {
		host = "127.0.0.1"
	} else if _, err := net.LookupHost(host); err != nil {
		reason := err.Error()
		var de *net.DNSError
		if errors.As(err, &de) {
			reason = de.Err
		}
		return "", fmt.Errorf("--metrics-addr: %q: unknown host %q (%s): give an address or a name this machine resolves, e.g. 127.0.0.1 or localhost", value, host, reason)
	}
	return net.JoinHostPort(host, strconv.Itoa(p)), nil
}

// metricsPort checks the port of --metrics-addr value.
func metricsPort(value, port string) (int, error) {
	p, err := strconv.Atoi(port)
	switch {
	case port == "":
		return 0, fmt.Errorf("--metrics-addr: %q is malformed (no port): must be host:port, e.g. 127.0.0.1:9464 (port 0 picks a free one)", value)
	case errors.Is(err, strconv.ErrRange) || (err == nil && (p < 0 || p > 65535)):
		return 0, fmt.Errorf("--metrics-addr: %q: port %s is out of range: must be from 0 to 65535 (0 picks a free port)", value, port)
	case err != nil:
		return 0, fmt.Errorf("--metrics-addr: %q is malformed (port %q is not a number): must be host:port with a port from 0 to 65535", value, port)
	}
	return p, nil
}

// listenError says why listening on --metrics-addr value failed.
func listenError(value string, err error) error {
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return fmt.Errorf("--metrics-addr: %q: address already in use (is another run or exporter serving there? choose another port, or port 0 for a free one)", value)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return fmt.Errorf("--metrics-addr: %q: not an address of this machine: give a local one, e.g. 127.0.0.1 or 0.0.0.0", value)
	case errors.Is(err, syscall.EACCES):
		return fmt.Errorf("--metrics-addr: %q: permission denied (ports below 1024 need privileges): choose a port from 1024 up", value)
	}
	return fmt.Errorf("--metrics-addr: %q: cannot listen: %w", value, err)
}
