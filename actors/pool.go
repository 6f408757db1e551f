package actors

import "sync"

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
	for i := 0; i < workers; i++ {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for fn := range p.work {
				fn()
			}
		}()
	}
	return p
}

func (p *pool) Schedule(fn func()) { p.work <- fn }
func (p *pool) Throughput() int    { return p.throughput }

func (p *pool) close() {
	close(p.work)
	p.wg.Wait()
}
