// Package grow sizes the flow engines' arrays to what they hold: Append
// grows a large array by an eighth at a time rather than by append's
// quarter or more, and Shrink gives back the space a burst left.
package grow

// Slack is the capacity below which Append grows as append does and
// Shrink never trims.
const Slack = 1024

// Append appends xs to s. Below Slack elements it grows as append does;
// above, by an eighth of the length: at most about 12.5% of the array is
// unused, and each element is copied about 9 times in all as the array
// grows (amortized O(1)).
func Append[T any](s []T, xs ...T) []T {
	n := len(s) + len(xs)
	if n <= cap(s) || n < Slack {
		return append(s, xs...)
	}
	t := make([]T, n, n+n/8)
	copy(t, s)
	copy(t[len(s):], xs)
	return t
}

// Window is how many calls (solves, batches) the flow engines let pass
// between two trims: an array is trimmed only for what it held over the
// whole window, so alternating large and small uses do not reallocate
// it each time.
const Window = 64

// Oversized reports whether an array of capacity c whose recent use
// peaked at used elements should be trimmed (to 2·used): when c is over
// 4·used + Slack. Trimming at a quarter and growing back by doubling
// keeps the cost of reallocation amortized O(1) per element used.
func Oversized(c, used int) bool { return c > 4*used+Slack }

// Shrink returns s, or a copy of it with capacity 2·peak if its capacity
// is Oversized for peak (the most elements it recently held, at least
// len(s)).
func Shrink[T any](s []T, peak int) []T {
	peak = max(peak, len(s))
	if !Oversized(cap(s), peak) {
		return s
	}
	return append(make([]T, 0, 2*peak), s...)
}

// Tight returns s, or a copy of it with capacity peak + peak/8 if its
// capacity is over peak + peak/4 + Slack (peak: the most elements it
// recently held, at least len(s)): for scratch arrays that are trimmed
// once a window, where a copy now and then costs little and the slack
// Shrink leaves (up to 4·peak) would be a large share of the memory.
func Tight[T any](s []T, peak int) []T {
	peak = max(peak, len(s))
	if cap(s) <= peak+peak/4+Slack {
		return s
	}
	return append(make([]T, 0, peak+peak/8), s...)
}

// Fit returns s, or a copy of it whose capacity is its length if it has
// not grown over the last window — its length is held, what it was at
// the window's start — and its unused capacity is over a 32nd of it
// (with at least Slack elements): an array named by index, which never
// shrinks, gives back the slack of its last growth once it has stopped
// growing. An array that grows again reallocates with Append's slack, at
// most once a window after each Fit.
func Fit[T any](s []T, held int) []T {
	if len(s) != held || len(s) < Slack || cap(s)-len(s) <= len(s)/32 {
		return s
	}
	return append(make([]T, 0, len(s)), s...)
}

// PageBits sets the size of a page of Pages: 256 elements.
const PageBits = 8

const pageSize = 1 << PageBits

// Pages is an array that grows a page at a time, for records named by
// index that stay at the most held at once: appending never moves the
// elements held (but in the first page, which grows as append does), so
// at most a page is unused — not up to an eighth of the array, as with
// Append — and nothing is copied. The zero value is empty.
type Pages[T any] struct {
	pages [][]T
	n     int
}

// Len returns the number of elements.
func (p *Pages[T]) Len() int { return p.n }

// At returns element i (0 <= i < Len()).
func (p *Pages[T]) At(i int32) *T { return &p.pages[i>>PageBits][i&(pageSize-1)] }

// Append appends x and returns its index.
func (p *Pages[T]) Append(x T) int32 {
	k := p.n >> PageBits
	if k == len(p.pages) {
		c := pageSize
		if k == 0 {
			c = 0
		}
		p.pages = append(p.pages, make([]T, 0, c))
	}
	p.pages[k] = append(p.pages[k], x)
	p.n++
	return int32(p.n - 1)
}
