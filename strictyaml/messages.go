package strictyaml

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/agnivade/levenshtein"
	"gopkg.in/yaml.v3"
)

// maxShown is the most characters of a key or value a message quotes.
const maxShown = 40

// unknownKey says that key is not one of allowed, suggesting the closest
// allowed key when it is close enough to be a typo, else listing them all.
func unknownKey(key string, allowed []string) string {
	if best := closest(key, allowed); best != "" {
		return "unknown key; did you mean " + best + "?"
	}
	return "unknown key; allowed keys: " + strings.Join(allowed, ", ")
}

// closest is the allowed key at the smallest edit distance from key
// (ignoring case, "-" for "_"), the first in field order on a tie; "" when
// even that one differs too much to be a typo. A typo is one edit in a
// key of up to 3 characters, two (a swap of two letters) up to 6, a third
// of the characters beyond.
func closest(key string, allowed []string) string {
	norm := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "-", "_") }
	k := norm(key)
	limit := typoEdits(len([]rune(k)))
	best, bestD := "", limit+1
	for _, a := range allowed {
		if d := levenshtein.ComputeDistance(k, norm(a)); d < bestD {
			best, bestD = a, d
		}
	}
	return best
}

func typoEdits(n int) int {
	switch {
	case n <= 1:
		return 0
	case n <= 3:
		return 1
	case n <= 6:
		return 2
	}
	return n / 3
}

// keyText is a key as a path shows it: plain when it is a word, quoted
// and shortened otherwise.
func keyText(k *yaml.Node) string {
	if k.Kind != yaml.ScalarNode {
		return "(" + describeNode(k) + ")"
	}
	plain := k.Value != ""
	for _, r := range k.Value {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			plain = false
			break
		}
	}
	if plain && len(k.Value) <= maxShown {
		return k.Value
	}
	return strconv.Quote(shorten(k.Value))
}

func shorten(s string) string { return shortenTo(s, maxShown) }

func shortenTo(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// describeNode names what the file wrote: a value as written (quoted when
// YAML reads it as a string), or the kind of collection.
func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.ShortTag() == "!!str" {
		return strconv.Quote(shorten(n.Value))
	}
	return shorten(n.Value)
}

// describeType names what a value of Go type t is, in the words of the
// config reference rather than of Go.
func describeType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "a mapping of keys"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "a non-negative integer"
	}
	return "a value of this key"
}

// scalarProblem says why scalar n does not decode into type t, "" when it
// does. yaml.v3 decides (so this check and the decode agree), except for a
// number with a fraction or beyond the range of an integer type, which
// yaml.v3 would cut to fit.
func scalarProblem(n *yaml.Node, t reflect.Type) string {
	if isInteger(t) && n.ShortTag() == "!!float" {
		if why := floatAsInteger(n, t); why != "" {
			return why
		}
	}
	if n.Decode(reflect.New(t).Interface()) == nil {
		return ""
	}
	if isInteger(t) && n.ShortTag() == "!!int" {
		return outOfRange(n, t)
	}
	return fmt.Sprintf("%s is not %s", describeNode(n), describeType(t))
}

// floatAsInteger refuses a float for integer type t unless it is a whole
// number in t's range.
func floatAsInteger(n *yaml.Node, t reflect.Type) string {
	var f float64
	if n.Decode(&f) != nil || f != math.Trunc(f) {
		return fmt.Sprintf("%s is not %s", describeNode(n), describeType(t))
	}
	bits := t.Bits()
	lo, hi := 0.0, math.Ldexp(1, bits)
	if !isUnsigned(t) {
		lo, hi = -math.Ldexp(1, bits-1), math.Ldexp(1, bits-1)
	}
	if f < lo || f >= hi {
		return outOfRange(n, t)
	}
	return ""
}

func outOfRange(n *yaml.Node, t reflect.Type) string {
	bits := t.Bits()
	lo, hi := strconv.FormatInt(math.MinInt64>>(64-bits), 10), strconv.FormatInt(math.MaxInt64>>(64-bits), 10)
	if isUnsigned(t) {
		lo, hi = "0", strconv.FormatUint(math.MaxUint64>>(64-bits), 10)
	}
	return fmt.Sprintf("%s is out of range: %s in [%s, %s]", describeNode(n), describeType(t), lo, hi)
}

func isInteger(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

func isUnsigned(t reflect.Type) bool { return t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uintptr }
