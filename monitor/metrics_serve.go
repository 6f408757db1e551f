package monitor

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// MetricsServer serves the registry of a Metrics on /metrics over HTTP.
type MetricsServer struct {
	srv    *http.Server
	ln     net.Listener
	served chan struct{}
}

// ServeMetrics listens on addr (host:port; port 0 picks a free one) at
// once, so that a taken port or a bad address is an error before the run
// starts, and serves /metrics until Close.
func ServeMetrics(addr string, m *Metrics) (*MetricsServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "opasim live metrics: /metrics")
	})
	s := &MetricsServer{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}, ln: ln,
		served: make(chan struct{})}
	go func() {
		defer close(s.served)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// URL is the address of the metrics page.
func (s *MetricsServer) URL() string { return "http://" + s.ln.Addr().String() + "/metrics" }

// Close stops serving, letting a scrape in progress finish (2 s at most).
func (s *MetricsServer) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	<-s.served
	return err
}
