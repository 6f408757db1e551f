package monitor

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/opasim/opasim/fabric"
)

// presetMetrics makes the Metrics of preset's network (paper-mix traffic)
// with o, its groups' state copied once (Finish) as after a run.
func presetMetrics(t testing.TB, preset string, o MetricsOptions) (*Metrics, fabric.Config) {
	t.Helper()
	c := fabric.Default()
	c.Topology = fabric.TopologyConfig{Preset: preset}
	if err := fabric.ApplyTrafficPreset(&c, "paper-mix"); err != nil {
		t.Fatal(err)
	}
	m := NewMetrics(build(t, c), o)
	m.Finish(0)
	return m, c
}

// scrapePage serves one scrape of sc and returns the page (gunzipped when
// gzip is asked for).
func scrapePage(t testing.TB, sc *Scraper, gz bool) []byte {
	t.Helper()
	w := httptest.NewRecorder()
	r := httptest.NewRequest("GET", "/metrics", nil)
	if gz {
		r.Header.Set("Accept-Encoding", "gzip")
	}
	sc.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Fatalf("scrape: status %d: %s", w.Code, w.Body)
	}
	if got := w.Header().Get("Content-Type"); got != "text/plain; version=0.0.4; charset=utf-8" {
		t.Errorf("Content-Type %q", got)
	}
	if !gz {
		return w.Body.Bytes()
	}
	if w.Header().Get("Content-Encoding") != "gzip" {
		t.Fatal("asked for gzip, got no Content-Encoding: gzip")
	}
	zr, err := gzip.NewReader(w.Body)
	if err != nil {
		t.Fatal(err)
	}
	text, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

func parsePage(t testing.TB, text []byte) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		t.Fatalf("the page does not parse: %v", err)
	}
	return mfs
}

// series lists a family's series as "name{labels} value" lines, sorted,
// as Prometheus counts them (a histogram's buckets, sum and count apart).
func seriesOf(mf *dto.MetricFamily) []string {
	var out []string
	for _, m := range mf.GetMetric() {
		var ls []string
		for _, l := range m.GetLabel() {
			ls = append(ls, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
		}
		slices.Sort(ls)
		key := mf.GetName() + "{" + strings.Join(ls, ",") + "}"
		switch {
		case m.Histogram != nil:
			h := m.GetHistogram()
			for _, b := range h.GetBucket() {
				if math.IsInf(b.GetUpperBound(), 1) { // the parser's explicit +Inf: the registry's is implicit
					if b.GetCumulativeCount() != h.GetSampleCount() {
						out = append(out, fmt.Sprintf("%s_bucket le=+Inf %d but count %d", key, b.GetCumulativeCount(), h.GetSampleCount()))
					}
					continue
				}
				out = append(out, fmt.Sprintf("%s_bucket le=%g %d", key, b.GetUpperBound(), b.GetCumulativeCount()))
			}
			out = append(out, fmt.Sprintf("%s_count %d", key, h.GetSampleCount()), fmt.Sprintf("%s_sum %g", key, h.GetSampleSum()))
		case m.Counter != nil:
			out = append(out, fmt.Sprintf("%s %g", key, m.GetCounter().GetValue()))
		case m.Gauge != nil:
			out = append(out, fmt.Sprintf("%s %g", key, m.GetGauge().GetValue()))
		default:
			out = append(out, key+" ?")
		}
	}
	slices.Sort(out)
	return out
}

// TestPageMatchesCollector: the page a Scraper writes straight from the
// groups' copies has exactly the opasim_ series the Collector sends
// through a Prometheus registry (names, help, types, labels, values, each
// histogram bucket), after a run, gzipped or not, with constant labels
// that need escaping and ports of some switches only; it parses with
// Prometheus' own text parser, which refuses a family written twice.
func TestPageMatchesCollector(t *testing.T) {
	cfg := smallTree(3000)
	cfg.Engine = "sequential"
	ports := []bool{true, false, false, true} // switches 0 and 3 of 8
	m, _ := observedRun(t, cfg, MetricsOptions{PortDetail: true, PortSwitches: ports,
		Labels: map[string]string{"run_id": `a"b\c`, "member": "1"}})
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	sc := NewScraper(func() *Metrics { return m })
	for _, gz := range []bool{false, true} {
		page := parsePage(t, scrapePage(t, sc, gz))
		seen := 0
		for _, want := range mfs {
			got, ok := page[want.GetName()]
			if !ok {
				t.Errorf("gzip %v: the page lacks %s", gz, want.GetName())
				continue
			}
			if !strings.HasPrefix(want.GetName(), "opasim_") {
				continue // the Go runtime's and the process's figures change between two gathers
			}
			seen++
			if got.GetType() != want.GetType() || got.GetHelp() != want.GetHelp() {
				t.Errorf("%s: type %v help %q on the page; the registry's %v %q", want.GetName(), got.GetType(), got.GetHelp(), want.GetType(), want.GetHelp())
			}
			if strings.HasPrefix(want.GetName(), "opasim_metrics_") {
				continue // the gathers' own figures: the registry's gather is not the Scraper's
			}
			if g, w := seriesOf(got), seriesOf(want); !slices.Equal(g, w) {
				t.Errorf("%s: %d series on the page, %d from the registry; first page series %q, registry's %q",
					want.GetName(), len(g), len(w), first(g), first(w))
			}
		}
		if len(page) != len(mfs) || seen < 25 {
			t.Errorf("gzip %v: %d families on the page, %d from the registry (%d opasim_ compared)", gz, len(page), len(mfs), seen)
		}
		switches := map[string]bool{}
		for _, mt := range page["opasim_port_grants_total"].GetMetric() {
			for _, l := range mt.GetLabel() {
				if l.GetName() == "switch" {
					switches[l.GetValue()] = true
				}
				if l.GetName() == "run_id" && l.GetValue() != `a"b\c` {
					t.Errorf("run_id %q on the page", l.GetValue())
				}
			}
		}
		if len(switches) != 2 || !switches["0"] || !switches["3"] {
			t.Errorf("per-port series of switches %v, want 0 and 3 only", switches)
		}
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// TestEstimateSeries: EstimateSeries, from the network's size alone,
// counts the series of a real scrape exactly, on three presets, with and
// without per-port series, and with the ports of a few switches only.
func TestEstimateSeries(t *testing.T) {
	for _, tc := range []struct {
		preset string
		o      MetricsOptions
	}{
		{"single-switch", MetricsOptions{}},
		{"single-switch", MetricsOptions{PortDetail: true}},
		{"tree-8ary-2", MetricsOptions{PortDetail: true}},
		{"tree-8ary-2", MetricsOptions{PortDetail: true, PortSwitches: []bool{false, true, true, false, false, false, false, false, false, false, false, false, false, false, false, true}}},
		{"torus3d-8x8x4", MetricsOptions{}},
		{"torus3d-8x8x4", MetricsOptions{PortDetail: true}},
	} {
		name := fmt.Sprintf("%s ports %v (%d switches given)", tc.preset, tc.o.PortDetail, len(tc.o.PortSwitches))
		m, cfg := presetMetrics(t, tc.preset, tc.o)
		got := countSeries(familyList(parsePage(t, scrapePage(t, NewScraper(func() *Metrics { return m }), false))))
		est := EstimateSeries(cfg, tc.o)
		if est.Total != got {
			t.Errorf("%s: estimated %d series (%+v), a scrape has %d", name, est.Total, est, got)
		}
		mfs, err := m.Registry().Gather()
		if err != nil {
			t.Fatal(err)
		}
		if reg := countSeries(mfs); reg != got {
			t.Errorf("%s: the registry has %d series, the page %d", name, reg, got)
		}
	}
	// torus3d-8x8x4 by hand: 256 switches of 28 ports (4 NICs, 6 directions
	// of 4 trunk links), paper-mix's 5 SLs: 8 + 5 series a port.
	c := fabric.Default()
	c.Topology = fabric.TopologyConfig{Preset: "torus3d-8x8x4"}
	if err := fabric.ApplyTrafficPreset(&c, "paper-mix"); err != nil {
		t.Fatal(err)
	}
	if e := EstimateSeries(c, MetricsOptions{PortDetail: true}); e.Ports != 256*28*13 || e.PerSwitch != 28*13 {
		t.Errorf("torus3d-8x8x4: %d per-port series, %d a switch; want %d, %d", e.Ports, e.PerSwitch, 256*28*13, 28*13)
	}
}

func familyList(m map[string]*dto.MetricFamily) []*dto.MetricFamily {
	var out []*dto.MetricFamily
	for _, mf := range m {
		out = append(out, mf)
	}
	return out
}

// waitFor waits until cond holds, polling; bounded by a generous named
// limit so that a broken server fails the test rather than hanging it.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	const generous = time.Minute
	deadline := time.Now().Add(generous)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, generous)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestScrapesOneGatherAtATime: 40 scrapes that come while a gather is in
// progress, and 20 more whose clients give up while they wait, are all
// served by that one gather: the 40 get the same whole page, the 20 cost
// nothing, and every handler ends. The Metrics' pages are never fresh by
// age (Every 1 ns): only waiting for the gather in progress shares it.
func TestScrapesOneGatherAtATime(t *testing.T) {
	m, _ := presetMetrics(t, "torus2d-4x4", MetricsOptions{PortDetail: true, Every: time.Nanosecond})
	sc := NewScraper(func() *Metrics { return m })
	srv := httptest.NewServer(sc)
	defer srv.Close()
	const served, abandoned = 40, 20
	abandon, giveUp := context.WithCancel(context.Background())
	var once sync.Once
	gathering := make(chan struct{})
	sc.onGather = func() {
		once.Do(func() {
			// the first gather (a served scrape's: the abandoned ones
			// start once it has begun, so none of them holds it and
			// stays in) holds until every scrape waits for it, and the
			// abandoned ones have left
			close(gathering)
			waitFor(t, "every scrape in", func() bool { return len(sc.waiting) == served+abandoned })
			giveUp()
			waitFor(t, "the abandoned scrapes gone", func() bool { return len(sc.waiting) == served })
		})
	}
	pages := make([][]byte, served)
	errs := make([]error, served+abandoned)
	var wg sync.WaitGroup
	for i := range served + abandoned {
		if i == served {
			<-gathering
		}
		wg.Go(func() {
			ctx := context.Background()
			if i >= served {
				ctx = abandon
			}
			req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
			resp, err := srv.Client().Do(req)
			if err != nil {
				errs[i] = err
				return
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err == nil && resp.StatusCode != http.StatusOK {
				err = fmt.Errorf("status %d: %s", resp.StatusCode, body)
			}
			if i < served {
				pages[i] = body
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if n := sc.Gathers(); n != 1 {
		t.Errorf("%d gathers for %d scrapes that came during the first; want 1", n, served+abandoned)
	}
	for i := range served {
		if errs[i] != nil || !bytes.Equal(pages[i], pages[0]) {
			t.Fatalf("scrape %d: %v, %d bytes (scrape 0: %d)", i, errs[i], len(pages[i]), len(pages[0]))
		}
	}
	for i := served; i < served+abandoned; i++ {
		if errs[i] == nil {
			t.Errorf("abandoned scrape %d was answered", i)
		}
	}
	shared := parsePage(t, pages[0])
	if got, want := countSeries(familyList(shared)), EstimateSeries(m.run.net.Config, MetricsOptions{PortDetail: true}).Total; got != want {
		t.Errorf("the shared page has %d series, want %d", got, want)
	}
	if n := shared["opasim_metrics_gathers_total"].GetMetric()[0].GetCounter().GetValue(); n != 1 {
		t.Errorf("the shared page says %g gathers, want 1", n)
	}
	waitFor(t, "every handler ended", func() bool { return len(sc.waiting) == 0 })
	// a scrape after the gather, and after no waiting, gathers anew
	scrapePage(t, sc, true)
	if n := sc.Gathers(); n != 2 {
		t.Errorf("%d gathers after one more scrape, want 2", n)
	}
}

// TestPagesReused: eight clients scraping without a pause, half with gzip,
// while every scrape finds the last page stale (Every 1 ns) and the
// counters grow (so do the pages), get whole pages (the series
// EstimateSeries counts) over dozens of gathers, made in buffers that
// pages no longer served leave; then 30 scrapes one after the other, each
// page longer than the last, make at most 2 new buffers (a page and its
// gzip), where a buffer per page and gzip would be 60.
func TestPagesReused(t *testing.T) {
	m, cfg := presetMetrics(t, "single-switch", MetricsOptions{PortDetail: true, Every: time.Nanosecond})
	sc := NewScraper(func() *Metrics { return m })
	srv := httptest.NewServer(sc)
	defer srv.Close()
	want := EstimateSeries(cfg, MetricsOptions{PortDetail: true}).Total
	const clients, each = 8, 12
	errs := make(chan error, clients*each)
	var wg sync.WaitGroup
	done := make(chan struct{})
	grown := make(chan struct{})
	go func() { // the counters grow, and the pages with them, as in a run
		defer close(grown)
		for k := int64(1); ; k++ {
			select {
			case <-done:
				return
			default:
			}
			for _, g := range m.run.groups {
				g.mu.Lock()
				for q := range g.pub.ports {
					g.pub.ports[q].StallCycles += 977 * k * k
				}
				g.mu.Unlock()
			}
			time.Sleep(time.Millisecond)
		}
	}()
	for c := range clients {
		wg.Go(func() {
			tr := &http.Transport{DisableCompression: c%2 == 0} // the odd ones ask for gzip (and get it inflated)
			defer tr.CloseIdleConnections()
			for range each {
				resp, err := (&http.Client{Transport: tr}).Get(srv.URL)
				if err != nil {
					errs <- err
					continue
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					errs <- err
					continue
				}
				mfs, err := (&expfmtParser{}).parse(body)
				if err != nil {
					errs <- fmt.Errorf("client %d: %v", c, err)
				} else if n := countSeries(mfs); n != want {
					errs <- fmt.Errorf("client %d: a page of %d series, want %d", c, n, want)
				}
			}
		})
	}
	wg.Wait()
	close(done)
	<-grown
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("%d gathers, %d buffers made", sc.Gathers(), sc.buffers.Load())
	if sc.Gathers() < 20 {
		t.Errorf("%d gathers for %d scrapes that all find the last page stale", sc.Gathers(), clients*each)
	}
	// one scrape after the other, each page longer than the last: the
	// last page's buffers serve the next (a buffer just the size of the
	// page before would not)
	before, gathers := sc.buffers.Load(), sc.Gathers()
	for k := range int64(30) {
		for _, g := range m.run.groups {
			g.mu.Lock()
			for q := range g.pub.ports {
				g.pub.ports[q].StallCycles += 977 * k * k
			}
			g.mu.Unlock()
		}
		if n := countSeries(familyList(parsePage(t, scrapePage(t, sc, true)))); n != want {
			t.Fatalf("sequential scrape %d: %d series, want %d", k, n, want)
		}
	}
	if made := sc.buffers.Load() - before; made > 2 || sc.Gathers()-gathers != 30 {
		t.Errorf("%d buffers made over %d sequential gathers of growing pages, want 2 at most", made, sc.Gathers()-gathers)
	}
}

// expfmtParser parses a text page, for use from several goroutines.
type expfmtParser struct{}

func (expfmtParser) parse(text []byte) ([]*dto.MetricFamily, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(bytes.NewReader(text))
	return familyList(mfs), err
}

// slowClient sends a scrape and never reads the answer: its socket's
// receive buffer is a few KB, so the server's write of a page blocks.
func slowClient(t *testing.T, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "GET /metrics HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	return c
}

// TestScrapeMemoryBounded: clients that never read their page, coming in
// 20 waves with a gather each, keep at most MaxScrapesWriting pages alive
// (and the last): the heap grows by no more than MaxScrapesWriting + 3
// pages, where one page per wave (20) would be kept if every scrape
// wrote its own. Each client's write is cut off after the write timeout;
// closing the clients ends every handler.
func TestScrapeMemoryBounded(t *testing.T) {
	m, _ := presetMetrics(t, "torus2d-8x8", MetricsOptions{PortDetail: true, Every: time.Nanosecond})
	sc := NewScraper(func() *Metrics { return m })
	sc.writeTimeout = time.Hour // the clients hold their writes as long as they like
	srv := httptest.NewUnstartedServer(sc)
	srv.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		_ = c.(*net.TCPConn).SetWriteBuffer(4096) // the page stays in the process, not in the kernel
		return ctx
	}
	srv.Start()
	defer srv.Close()
	pageSize := uint64(len(scrapePage(t, sc, false)))
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	base := heap()
	addr := srv.Listener.Addr().String()
	const waves, perWave = 20, 2
	var clients []net.Conn
	for w := range waves {
		before := sc.Gathers()
		for range perWave {
			clients = append(clients, slowClient(t, addr))
		}
		// this wave's gather made and ended (the next wave's clients must not share it)
		waitFor(t, fmt.Sprintf("wave %d gathered", w), func() bool {
			return sc.Gathers() > before && len(sc.gate) == 0 && len(sc.waiting) == len(clients)
		})
	}
	waitFor(t, "the writers blocked", func() bool { return len(sc.writing) == MaxScrapesWriting })
	grown := int64(heap()) - int64(base)
	bound := int64(MaxScrapesWriting+3) * int64(pageSize)
	t.Logf("page %d bytes; %d gathers; heap grew by %d bytes with %d clients not reading (bound %d)",
		pageSize, sc.Gathers(), grown, len(clients), bound)
	if sc.Gathers() < waves {
		t.Errorf("%d gathers for %d waves", sc.Gathers(), waves)
	}
	if grown > bound {
		t.Errorf("the heap grew by %d bytes with %d clients not reading: more than %d pages of %d bytes", grown, len(clients), MaxScrapesWriting+3, pageSize)
	}
	for _, c := range clients {
		c.Close()
	}
	waitFor(t, "every handler ended", func() bool { return len(sc.waiting) == 0 })
}

// TestScrapeWriteTimeout: clients that never read are cut off after the
// write timeout: their turns to write end, and each finds its connection
// closed before the whole page.
func TestScrapeWriteTimeout(t *testing.T) {
	m, _ := presetMetrics(t, "torus2d-8x8", MetricsOptions{PortDetail: true})
	sc := NewScraper(func() *Metrics { return m })
	sc.writeTimeout = 200 * time.Millisecond
	srv := httptest.NewUnstartedServer(sc)
	srv.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		_ = c.(*net.TCPConn).SetWriteBuffer(4096)
		return ctx
	}
	var closed atomic.Int64
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateClosed {
			closed.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	var clients []net.Conn
	for range MaxScrapesWriting {
		clients = append(clients, slowClient(t, srv.Listener.Addr().String()))
	}
	waitFor(t, "the server closed the connections", func() bool { return closed.Load() == MaxScrapesWriting })
	page := len(sc.lastPage().text)
	for i, c := range clients {
		n, err := io.Copy(io.Discard, c) // the server closed it: EOF or a reset
		if n >= int64(page) {
			t.Errorf("client %d read %d bytes, the whole page (%d)", i, n, page)
		}
		t.Logf("client %d: %d bytes, then %v", i, n, err)
		c.Close()
	}
}

// BenchmarkScrapeTorus3D: one port-detail scrape of the largest preset,
// torus3d-8x8x4 (88,000 series), gathered anew each time, gzipped (as
// Prometheus asks), reporting the process's CPU time a scrape:
//
//	go test ./monitor -run '^$' -bench ScrapeTorus3D -benchtime 20x -cpuprofile cpu.out
func BenchmarkScrapeTorus3D(b *testing.B) {
	m, _ := presetMetrics(b, "torus3d-8x8x4", MetricsOptions{PortDetail: true, Every: time.Nanosecond,
		Labels: map[string]string{"run_id": "20260101T000000Z-abcdef"}})
	sc := NewScraper(func() *Metrics { return m })
	cpu := func() time.Duration { // the process's, GC included: wall time on a busy machine says little
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	n, start := 0, cpu()
	for b.Loop() {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("GET", "/metrics", nil)
		r.Header.Set("Accept-Encoding", "gzip")
		sc.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code)
		}
		n++
	}
	b.ReportMetric(float64((cpu()-start).Milliseconds())/float64(n), "cpu-ms/op")
}
