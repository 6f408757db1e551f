package monitor

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/opasim/opasim/sim"
)

// upload is one profile a fake Pyroscope server received.
type upload struct {
	name    string // the application name with its tags
	profile *profile.Profile
}

// fakePyroscope is a local HTTP server with Pyroscope's /ingest endpoint
// that parses every pprof profile it receives.
func fakePyroscope(t *testing.T) (*httptest.Server, func() []upload) {
	var mu sync.Mutex
	var got []upload
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/ingest" || r.Method != http.MethodPost {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		f, _, err := r.FormFile("profile")
		if err != nil {
			t.Errorf("upload without a profile part: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		defer f.Close()
		p, err := profile.Parse(f) // gzip or not
		if err != nil {
			t.Errorf("upload %s: not a pprof profile: %v", r.URL.Query().Get("name"), err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		got = append(got, upload{name: r.URL.Query().Get("name"), profile: p})
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return srv, func() []upload {
		mu.Lock()
		defer mu.Unlock()
		return append([]upload(nil), got...)
	}
}

// TestPyroscopeUpload: the profiler pushes, during a real run, a CPU
// profile and heap profiles that parse as pprof and hold samples, tagged
// with the run's tags.
func TestPyroscopeUpload(t *testing.T) {
	srv, uploads := fakePyroscope(t)
	var warn syncBuilder
	p, err := StartProfiling(ProfilingOptions{ServerURL: srv.URL, Warn: &warn,
		Tags: map[string]string{"preset": "tree", "scheduler": "rr", "run_id": "test-1"}})
	if err != nil {
		t.Fatal(err)
	}
	// Half a second of CPU at least, so the 100 Hz profiler takes samples.
	for begin := time.Now(); time.Since(begin) < 500*time.Millisecond; {
		n := build(t, smallTree(2000))
		runOn(t, context.Background(), n, sim.Hooks{})
	}
	p.Stop()
	if warn.String() != "" {
		t.Errorf("warning with a working server: %s", warn.String())
	}
	types := map[string]int64{} // sample type -> samples with a non-zero value
	for _, u := range uploads() {
		for _, tag := range []string{"opasim{", "preset=tree", "scheduler=rr", "run_id=test-1"} {
			if !strings.Contains(u.name, tag) {
				t.Errorf("upload named %q lacks %q", u.name, tag)
			}
		}
		for i, st := range u.profile.SampleType {
			for _, s := range u.profile.Sample {
				if s.Value[i] != 0 {
					types[st.Type]++
				}
			}
		}
	}
	t.Logf("%d uploads; samples by type: %v", len(uploads()), types)
	for _, want := range []string{"cpu", "alloc_objects", "alloc_space"} {
		if types[want] == 0 {
			t.Errorf("no %s samples in any upload", want)
		}
	}
}

// TestPyroscopeUnreachable: a server that is not there never fails the
// run; the first failure is reported once.
func TestPyroscopeUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	var warn syncBuilder
	p, err := StartProfiling(ProfilingOptions{ServerURL: "http://" + addr, Warn: &warn})
	if err != nil {
		t.Fatalf("an unreachable server is not an error: %v", err)
	}
	n := build(t, smallTree(2000))
	runOn(t, context.Background(), n, sim.Hooks{})
	done := make(chan struct{})
	go func() { p.Stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Stop took more than 30 s with the server gone")
	}
	out := warn.String()
	if strings.Count(out, "\n") != 1 || !strings.Contains(out, "warning: pyroscope") {
		t.Errorf("want one warning line, got %q", out)
	}
}

// TestPyroscopeBadURL: a malformed URL is an error that says what is allowed.
func TestPyroscopeBadURL(t *testing.T) {
	for _, u := range []string{"", "127.0.0.1:4040", "ftp://host:4040", "http://", "::"} {
		p, err := StartProfiling(ProfilingOptions{ServerURL: u, Warn: io.Discard})
		if err == nil {
			p.Stop()
			t.Errorf("%q: no error", u)
		} else if !strings.Contains(err.Error(), "http://") {
			t.Errorf("%q: %v does not say what is allowed", u, err)
		}
	}
}

// syncBuilder is a strings.Builder the profiler's goroutines may write.
type syncBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
