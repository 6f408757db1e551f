package sched

import (
	"fmt"
	"math"
)

// MaxCounterBits is the widest a counter may be (Counters.Bits): a signed
// 63-bit register still fits an int64 sum of two of them.
const MaxCounterBits = 63

// Counters is the width of the weight, deficit and remaining-weight
// registers of a scheduler in hardware, and what they do when a result
// does not fit (docs/schedulers.md, "Hardware constraints"). Bits 0 is
// unlimited (Go ints, the model before this type existed). Otherwise a
// counter that never goes below zero is an unsigned register of Bits
// bits, [0, 2^Bits − 1]; a counter that can hold a debt (dtable's
// accumulated weight and deficits, dtable_sc's per-SC weights, vlarb's
// remaining weight) is a two's complement one, [−2^(Bits−1),
// 2^(Bits−1) − 1]. A saturating counter clamps a result to its range; a
// wrapping one keeps it modulo 2^Bits (two's complement for the signed
// ones). Every addition and subtraction on a counter is one register
// operation: the schedulers call Add or AddSigned for each.
type Counters struct {
	Bits int
	Wrap bool // false: saturate
}

// Limited reports whether the counters have a width.
func (c Counters) Limited() bool { return c.Bits > 0 }

// UnsignedMax is the largest value of an unsigned counter (math.MaxInt
// when unlimited).
func (c Counters) UnsignedMax() int {
	if c.Bits <= 0 || c.Bits >= 64 {
		return math.MaxInt
	}
	return int(uint64(1)<<uint(c.Bits) - 1)
}

// SignedMax is the largest value of a signed counter; SignedMin is
// −SignedMax − 1.
func (c Counters) SignedMax() int {
	if c.Bits <= 0 {
		return math.MaxInt
	}
	return int(uint64(1)<<uint(c.Bits-1) - 1)
}

// SignedMin is the smallest value of a signed counter.
func (c Counters) SignedMin() int { return -c.SignedMax() - 1 }

// Add is a + b in an unsigned counter holding a.
func (c Counters) Add(a, b int) int {
	s, over := add(a, b)
	switch {
	case c.Bits <= 0:
		return s
	case c.Wrap:
		return int(uint64(s) & uint64(c.UnsignedMax()))
	case over && b > 0, !over && s > c.UnsignedMax():
		return c.UnsignedMax()
	case s < 0:
		return 0
	}
	return s
}

// AddSigned is a + b in a signed counter holding a.
func (c Counters) AddSigned(a, b int) int {
	s, over := add(a, b)
	switch {
	case c.Bits <= 0:
		return s
	case c.Wrap:
		u, m := uint64(s), uint64(c.UnsignedMax())
		if u&(m>>1+1) != 0 { // the sign bit of a Bits-bit register
			return int(u | ^m)
		}
		return int(u & m)
	case over && b > 0, !over && s > c.SignedMax():
		return c.SignedMax()
	case over, s < c.SignedMin():
		return c.SignedMin()
	}
	return s
}

// add is a + b modulo 2^64 (Go's int arithmetic) and whether it overflowed.
func add(a, b int) (int, bool) {
	s := a + b
	return s, (a > 0 && b > 0 && s < 0) || (a < 0 && b < 0 && s >= 0)
}

// fitsUnsigned checks that a configured value v of field fits an
// unsigned counter, for the factories' problem lists.
func (c Counters) fitsUnsigned(name, field string, v int) error {
	if c.Limited() && v > c.UnsignedMax() {
		return fmt.Errorf("%s: %s = %d does not fit a %d-bit counter, want 0..%d (qos.counter_bits)", name, field, v, c.Bits, c.UnsignedMax())
	}
	return nil
}

// fitsSigned checks that v fits a signed counter (one that holds debts).
func (c Counters) fitsSigned(name, field string, v int) error {
	if c.Limited() && v > c.SignedMax() {
		return fmt.Errorf("%s: %s = %d does not fit the %d-bit signed counter it is loaded into, want 0..%d (qos.counter_bits)", name, field, v, c.Bits, c.SignedMax())
	}
	return nil
}

// fitTable checks that every weight of table (field names it) fits the
// signed counter it is loaded into, naming the first that does not and how
// many others do not either.
func (c Counters) fitTable(name, field string, table []Entry) error {
	first, n := -1, 0
	for e, en := range table {
		if c.Limited() && en.Weight > c.SignedMax() {
			if n++; first < 0 {
				first = e
			}
		}
	}
	if n == 0 {
		return nil
	}
	err := c.fitsSigned(name, fmt.Sprintf("%s[%d].Weight", field, first), table[first].Weight)
	if n > 1 {
		err = fmt.Errorf("%w; %d more entries of %s do not fit either", err, n-1, field)
	}
	return err
}

// validate checks the width itself.
func (c Counters) validate(name string) error {
	if c.Bits < 0 || c.Bits > MaxCounterBits {
		return fmt.Errorf("%s: Counters.Bits = %d, want 0 (unlimited) to %d", name, c.Bits, MaxCounterBits)
	}
	return nil
}
