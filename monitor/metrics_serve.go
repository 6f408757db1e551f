package monitor

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
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
//     clients read or abandon their scrapes; a page's buffers are reused
//     by a later gather once no scrape writes it (maxSpare of them kept).
type Scraper struct {
	source       func() *Metrics // nil: nothing to serve yet
	gate         chan struct{}   // held while gathering: one gather at a time
	waiting      chan struct{}   // scrapes in progress
	writing      chan struct{}   // scrapes writing a page
	mu           sync.Mutex      // guards last, the pages' refs and the spare buffers
	last         *page
	spare        [][]byte // buffers of pages no longer served, for the next (maxSpare)
	buffers      atomic.Int64
	gathers      atomic.Int64
	tw           *textWriter // of the Metrics twFor; under gate
	twFor        *Metrics
	writeTimeout time.Duration
	stopped      atomic.Bool // a gather in progress gives up, and no other starts
	onGather     func()      // tests: called at the start of each gather, under gate
}

var errStopped = errors.New("the metrics server is stopping")

// maxSpare is the most buffers of pages no longer served a Scraper keeps
// for its next gathers: a page's text and its gzip.
const maxSpare = 2

// page is one gather's text, and its gzip made on first demand.
type page struct {
	m        *Metrics
	at, done time.Time // the gather's start and end
	finished int64     // the Metrics' Finish calls when gathered
	text     []byte
	gzOnce   sync.Once
	gz       []byte
	refs     int // under Scraper.mu: 1 while the last page, and 1 per scrape writing it
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
	p := s.take() // the latest: at least as new as the one gather made ready
	defer s.release(p)
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.writeTimeout))
	h := w.Header()
	h.Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	body := p.text
	if acceptsGzip(r) {
		body = s.gzipped(p)
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write(body)
}

// take returns the last page, held until release.
func (s *Scraper) take() *page {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last.refs++
	return s.last
}

// release lets p go; the last to let a page go that is no longer the last
// one keeps its buffers for a later gather.
func (s *Scraper) release(p *page) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.refs--; p.refs > 0 {
		return
	}
	for _, b := range [][]byte{p.text, p.gz} {
		if cap(b) > 0 {
			s.spare = append(s.spare, b[:0])
		}
	}
	if n := len(s.spare); n > maxSpare {
		s.spare = slices.Delete(s.spare, 0, n-maxSpare) // the oldest go
	}
	p.text, p.gz = nil, nil
}

// buffer returns the smallest spare buffer of at least need bytes, or a
// new one of size bytes.
func (s *Scraper) buffer(need, size int) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	best := -1
	for i, b := range s.spare {
		if cap(b) >= need && (best < 0 || cap(b) < cap(s.spare[best])) {
			best = i
		}
	}
	if best < 0 {
		s.buffers.Add(1)
		return make([]byte, 0, size)
	}
	b := s.spare[best]
	s.spare = slices.Delete(s.spare, best, best+1)
	return b
}

// lastPage is the last page, or nil.
func (s *Scraper) lastPage() *page {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// setLast makes p the last page and lets the previous one go.
func (s *Scraper) setLast(p *page) {
	s.mu.Lock()
	old := s.last
	p.refs, s.last = 1, p
	s.mu.Unlock()
	if old != nil {
		s.release(old)
	}
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
	if s.stopped.Load() {
		return errStopped
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
		need, size := 4096, 4096 // a page grows as counters do: a buffer kept must hold the last page and a little more
		if last := s.lastPage(); last != nil {
			need, size = len(last.text)+len(last.text)/64, len(last.text)+len(last.text)/8
		}
		s.gathers.Add(1)
		m.run.gathers.Add(1)
		text, err := m.writeRuntime(s.buffer(need, size))
		if err != nil {
			return err
		}
		var whole bool
		if p.text, whole = s.tw.write(m.run, &m.d, text, &s.stopped); !whole {
			return errStopped
		}
		m.run.gatherNs.Store(int64(time.Since(p.at)))
	}
	p.done = time.Now()
	s.setLast(p)
	return nil
}

// fresh tells whether the last page may serve a scrape of m that arrived
// at arrival: it is of m, made after m's last Finish, and either younger
// than m's Every or gathered until after arrival.
func (s *Scraper) fresh(m *Metrics, arrival time.Time) bool {
	p := s.lastPage()
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

// gzipped is page p gzipped, made once; p is held.
func (s *Scraper) gzipped(p *page) []byte {
	p.gzOnce.Do(func() {
		b := bytes.NewBuffer(s.buffer(len(p.text)/16, len(p.text)/8+512))
		zw, _ := gzipWriters.Get().(*gzip.Writer)
		if zw == nil {
			zw, _ = gzip.NewWriterLevel(b, gzip.BestSpeed)
		} else {
			zw.Reset(b)
		}
		_, _ = zw.Write(p.text)
		_ = zw.Close()
		gzipWriters.Put(zw)
		p.gz = b.Bytes()
	})
	return p.gz
}

var gzipWriters sync.Pool

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
// and a gather in progress (a run stopped by a signal ends without waiting
// for them).
func (s *MetricsServer) CloseNow() error {
	s.scraper.stopped.Store(true)
	err := s.srv.Close()
	<-s.served
	return err
}

// CloseOn calls CloseNow as soon as ctx is done, so that after a signal no
// scrape takes the CPU the run needs to stop.
func (s *MetricsServer) CloseOn(ctx context.Context) {
	go func() {
		select {
		case <-ctx.Done():
			_ = s.CloseNow()
		case <-s.served:
		}
	}()
}
