package actors

import (
	"runtime"
	"sync"
)

// spins is how many times an idle worker polls for work, yielding in
// between, before it parks: a window's groups finish within microseconds of
// each other, and waking a parked goroutine costs more than that.
const spins = 64

// pool is a protoactor dispatcher backed by a fixed set of worker
// goroutines, so activating a mailbox does not start a goroutine.
type pool struct {
	work       chan func()
	throughput int
	wg         sync.WaitGroup
}

// newPool starts workers goroutines; capacity must exceed the number of
// mailboxes that use the pool (each is scheduled at most once at a time).
func newPool(workers, capacity, throughput int) *pool {
	p := &pool{work: make(chan func(), capacity), throughput: throughput}
	p.wg.Add(workers)
	for i := 0; i < workers; i++ {
		go p.worker()
	}
	return p
}

func (p *pool) worker() {
	defer p.wg.Done()
	for {
		fn, ok := p.next()
		if !ok {
			return
		}
		fn()
	}
}

// next spins briefly, then blocks, for the next activation.
func (p *pool) next() (func(), bool) {
	for i := 0; i < spins; i++ {
		select {
		case fn, ok := <-p.work:
			return fn, ok
		default:
			runtime.Gosched()
		}
	}
	fn, ok := <-p.work
	return fn, ok
}

func (p *pool) Schedule(fn func()) { p.work <- fn }
func (p *pool) Throughput() int    { return p.throughput }

func (p *pool) close() {
	close(p.work)
	p.wg.Wait()
}
