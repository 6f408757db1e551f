package route

import (
	"fmt"
	"sync"
)

// DefaultCacheBytes is the memory bound of the path cache a multipath
// router makes for itself when given none: 64 MiB.
const DefaultCacheBytes = 64 << 20

// entryOverhead is what PathCache counts for an entry besides its paths'
// links: the entry (key, two slice headers, two list pointers) and its
// map slot, rounded up.
const entryOverhead = 112

// PathCache keeps the paths a KSP or AllPath router computed, per pair of
// end nodes, within a memory bound: when adding a pair would pass it, the
// least recently used pairs are dropped (a pair bigger than the bound on
// its own is used once and not kept). An entry costs 4 bytes per link of
// its paths, 4 per path and entryOverhead. It is safe for concurrent use:
// a router and its clones share one, so a pair is computed once whichever
// goroutine meets it first (or, at worst, once by each of two goroutines
// meeting it together).
//
// A cache belongs to one routing of one graph: the first router built
// with it claims it, and building a router of another routing or graph
// with it is an error.
type PathCache struct {
	mu                      sync.Mutex
	limit, bytes            int64
	m                       map[uint64]*cacheEntry
	lru                     cacheEntry // sentinel: lru.next is the most recent entry, lru.prev the least
	hits, misses, evictions int64
	owner                   string
	ownerGraph              any
}

type cacheEntry struct {
	key        uint64
	links      []int32 // the paths back to back
	ends       []int32 // path i is links[ends[i-1]:ends[i]] (ends[-1] = 0)
	prev, next *cacheEntry
}

// CacheStats describes a PathCache.
type CacheStats struct {
	Entries                 int   // pairs held
	Bytes, Limit            int64 // memory counted and its bound
	Hits, Misses, Evictions int64 // lookups that found their pair, that did not, pairs dropped
}

// Limits on a PathCache's bound.
const (
	MinCacheBytes = 1 << 10
	MaxCacheBytes = 1 << 40
)

// NewPathCache returns an empty cache holding at most limitBytes.
func NewPathCache(limitBytes int64) (*PathCache, error) {
	if limitBytes < MinCacheBytes || limitBytes > MaxCacheBytes {
		return nil, fmt.Errorf("path cache bytes: %d is not allowed: must be in [%d, %d]", limitBytes, MinCacheBytes, MaxCacheBytes)
	}
	c := &PathCache{limit: limitBytes, m: map[uint64]*cacheEntry{}}
	c.lru.next, c.lru.prev = &c.lru, &c.lru
	return c, nil
}

// claim makes the cache the given routing's, or fails if it is another's.
func (c *PathCache) claim(name string, g any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.owner == "" {
		c.owner, c.ownerGraph = name, g
		return nil
	}
	if c.owner != name || c.ownerGraph != g {
		return fmt.Errorf("path cache: already used by %s routing of another graph or by another routing (%s): give each routing its own cache", c.owner, name)
	}
	return nil
}

// Stats returns the cache's counts.
func (c *PathCache) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Entries: len(c.m), Bytes: c.bytes, Limit: c.limit, Hits: c.hits, Misses: c.misses, Evictions: c.evictions}
}

func (e *cacheEntry) size() int64 { return 4*int64(len(e.links)+len(e.ends)) + entryOverhead }

func (c *PathCache) unlink(e *cacheEntry) {
	e.prev.next, e.next.prev = e.next, e.prev
}

func (c *PathCache) pushFront(e *cacheEntry) {
	e.prev, e.next = &c.lru, c.lru.next
	c.lru.next.prev = e
	c.lru.next = e
}

// get returns the entry of key, or nil. The entry's slices are never
// modified once stored, so the caller may read them after the lock.
func (c *PathCache) get(key uint64) *cacheEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[key]
	if e == nil {
		c.misses++
		return nil
	}
	c.hits++
	if c.lru.next != e {
		c.unlink(e)
		c.pushFront(e)
	}
	return e
}

// put stores e (unless it alone passes the bound or another goroutine
// stored its key meanwhile), dropping least recently used entries to make
// room.
func (c *PathCache) put(e *cacheEntry) {
	sz := e.size()
	c.mu.Lock()
	defer c.mu.Unlock()
	if sz > c.limit || c.m[e.key] != nil {
		return
	}
	for c.bytes+sz > c.limit {
		old := c.lru.prev
		c.unlink(old)
		delete(c.m, old.key)
		c.bytes -= old.size()
		c.evictions++
	}
	c.m[e.key] = e
	c.bytes += sz
	c.pushFront(e)
}
