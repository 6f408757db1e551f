package monitor

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Bounds of a scrape's cost: see Scraper.
const (
	// MaxScrapesWriting is the most scrapes whose page is being written
	// at once; others wait for their turn.
	MaxScrapesWriting = 4
	// MaxScrapesWaiting is the most scrapes in progress at once (waiting
	// for a gather or a turn to write, or writing); one more is refused at
	// once with 503.
	MaxScrapesWaiting = 64
	// ScrapeWriteTimeout bounds the time a scrape's client has to read its
	// page: a client that reads slower is cut off, so that it never holds
	// a page for long.
	ScrapeWriteTimeout = 30 * time.Second
)

// Scraper is the /metrics handler of a Metrics, with a bounded cost:
//
//   - One gather at a time. A scrape that comes while a gather is in
//     progress waits for it and serves its page; a scrape within
//     MetricsOptions.Every of the last gather (the groups copy their
//     state no more often) serves the last page as it is.
//   - A page is the text of every series, written straight from the
//     groups' copies (textWriter), and gzipped once for the scrapes that
//     ask for gzip.
//   - At most MaxScrapesWriting scrapes write a page at once, each the
//     latest when its turn comes, and each client has ScrapeWriteTimeout
//     to read it. A scrape holds no page while it waits, and one whose
//     client gives up while it waits ends there, with no gather made for
//     it. So at most MaxScrapesWriting + 2 pages are alive (those being
//     written, the last one and one being made), however slowly or often
//     clients read or abandon their scrapes.
type Scraper struct {
	source       func() *Metrics // nil: nothing to serve yet
	gate         chan struct{}   // held while gathering: one gather at a time
	waiting      chan struct{}   // scrapes in progress
	writing      chan struct{}   // scrapes writing a page
	last         atomic.Pointer[page]
	gathers      atomic.Int64
	tw           *textWriter // of the Metrics twFor; under gate
	twFor        *Metrics
	writeTimeout time.Duration
	onGather     func() // tests: called at the start of each gather, under gate
}

// page is one gather's text, and its gzip made on first demand.
type page struct {
	m        *Metrics
	at, done time.Time // the gather's start and end
	finished int64     // the Metrics' Finish calls when gathered
	text     []byte
	gzOnce   sync.Once
	gz       []byte
}

// NewScraper makes the /metrics handler of the Metrics source returns
// (which may change, or be nil until there is one: a member of a
// distributed run knows its part only once it joined).
func NewScraper(source func() *Metrics) *Scraper {
	return &Scraper{source: source, gate: make(chan struct{}, 1), waiting: make(chan struct{}, MaxScrapesWaiting),
		writing: make(chan struct{}, MaxScrapesWriting), writeTimeout: ScrapeWriteTimeout}
}

// Gathers is how many gathers s has made.
func (s *Scraper) Gathers() int64 { return s.gathers.Load() }

func (s *Scraper) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	select {
	case s.waiting <- struct{}{}:
		defer func() { <-s.waiting }()
	default:
		http.Error(w, fmt.Sprintf("opasim: %d scrapes are in progress already; try again later", MaxScrapesWaiting),
			http.StatusServiceUnavailable)
		return
	}
	ctx := r.Context()
	if err := s.gather(ctx, time.Now()); err != nil {
		if ctx.Err() == nil {
			http.Error(w, "opasim: "+err.Error(), http.StatusInternalServerError)
		}
		return
	}
	select {
	case s.writing <- struct{}{}:
		defer func() { <-s.writing }()
	case <-ctx.Done():
		return
	}
	p := s.last.Load() // the latest: at least as new as the one gather made ready
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.writeTimeout))
	h := w.Header()
	h.Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	body := p.text
	if acceptsGzip(r) {
		body = p.gzipped()
		h.Set("Content-Encoding", "gzip")
	}
	_, _ = w.Write(body)
}

// gather makes sure the last page is one a scrape that arrived at arrival
// may serve: one younger than the Metrics' Every, or one whose gather
// ended after arrival (the scrape waited for it); otherwise it gathers a
// new one. It gives up when ctx ends while it waits for another's gather.
func (s *Scraper) gather(ctx context.Context, arrival time.Time) error {
	m := s.source()
	if s.fresh(m, arrival) {
		return nil
	}
	select {
	case s.gate <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.gate }()
	if s.fresh(m, arrival) { // made while this scrape waited
		return nil
	}
	if s.onGather != nil {
		s.onGather()
	}
	p := &page{m: m, at: time.Now()}
	if m != nil {
		p.finished = m.run.finished.Load()
		if s.twFor != m {
			s.tw, s.twFor = newTextWriter(&m.d, m.labels), m
		}
		size := 4096
		if last := s.last.Load(); last != nil {
			size = len(last.text) + len(last.text)/8
		}
		s.gathers.Add(1)
		m.run.gathers.Add(1)
		text, err := m.writeRuntime(make([]byte, 0, size))
		if err != nil {
			return err
		}
		p.text = s.tw.write(m.run, &m.d, text)
		m.run.gatherNs.Store(int64(time.Since(p.at)))
	}
	p.done = time.Now()
	s.last.Store(p)
	return nil
}

// fresh tells whether the last page may serve a scrape of m that arrived
// at arrival: it is of m, made after m's last Finish, and either younger
// than m's Every or gathered until after arrival.
func (s *Scraper) fresh(m *Metrics, arrival time.Time) bool {
	p := s.last.Load()
	if p == nil || p.m != m {
		return false
	}
	if m == nil {
		return true
	}
	if p.finished != m.run.finished.Load() {
		return false
	}
	return time.Since(p.at) < m.run.every || !p.done.Before(arrival)
}

// gzipped is the page gzipped, made once.
func (p *page) gzipped() []byte {
	p.gzOnce.Do(func() {
		var b bytes.Buffer
		b.Grow(len(p.text)/8 + 512)
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
		_, _ = zw.Write(p.text)
		_ = zw.Close()
		p.gz = b.Bytes()
	})
	return p.gz
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.TrimSpace(enc) == "gzip" && strings.ReplaceAll(q, " ", "") != "q=0" {
			return true
		}
	}
	return false
}

// MetricsServer serves the registry of a Metrics on /metrics over HTTP.
type MetricsServer struct {
	srv     *http.Server
	ln      net.Listener
	served  chan struct{}
	scraper *Scraper
}

// ServeMetrics listens on addr (host:port; port 0 picks a free one) at
// once, so that a taken port or a bad address is an error before the run
// starts, and serves /metrics (a Scraper of m) until Close.
func ServeMetrics(addr string, m *Metrics) (*MetricsServer, error) {
	return ServeScraper(addr, NewScraper(func() *Metrics { return m }))
}

// ServeScraper is ServeMetrics for a Scraper.
func ServeScraper(addr string, sc *Scraper) (*MetricsServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", sc)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "opasim live metrics: /metrics")
	})
	s := &MetricsServer{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}, ln: ln,
		served: make(chan struct{}), scraper: sc}
	go func() {
		defer close(s.served)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// URL is the address of the metrics page.
func (s *MetricsServer) URL() string { return "http://" + s.ln.Addr().String() + "/metrics" }

// Addr is the address the server listens on.
func (s *MetricsServer) Addr() string { return s.ln.Addr().String() }

// Scraper is the server's /metrics handler.
func (s *MetricsServer) Scraper() *Scraper { return s.scraper }

// CloseGrace is how long Close lets the scrapes being answered finish.
const CloseGrace = 500 * time.Millisecond

// Close stops serving: it stops listening at once, lets the scrapes being
// answered finish for CloseGrace at most, then cuts them off.
func (s *MetricsServer) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), CloseGrace)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.srv.Close()
	}
	<-s.served
	return err
}

// CloseNow stops serving at once, cutting off the scrapes being answered
// (a run stopped by a signal ends without waiting for them).
func (s *MetricsServer) CloseNow() error {
	err := s.srv.Close()
	<-s.served
	return err
}
