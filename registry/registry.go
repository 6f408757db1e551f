package registry

import (
	"fmt"
	"sort"
	"strings"
)

// Registry maps names to entries of type T (factories, descriptions).
// Names are listed sorted, whatever the order of registration.
type Registry[T any] struct {
	kind    string // what an entry is, for errors: "scheduler", "routing"
	entries map[string]T
}

// New returns an empty registry of entries called kind in errors.
func New[T any](kind string) *Registry[T] {
	return &Registry[T]{kind: kind, entries: map[string]T{}}
}

// Register adds entry under name; a taken name is an error.
func (r *Registry[T]) Register(name string, entry T) error {
	if _, ok := r.entries[name]; ok {
		return fmt.Errorf("%s %q is already registered", r.kind, name)
	}
	r.entries[name] = entry
	return nil
}

// Names lists the registered names, sorted.
func (r *Registry[T]) Names() []string {
	names := make([]string, 0, len(r.entries))
	for n := range r.entries {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Has reports whether name is registered.
func (r *Registry[T]) Has(name string) bool { _, ok := r.entries[name]; return ok }

// Get returns the entry called name, or an error listing the known names.
func (r *Registry[T]) Get(name string) (T, error) {
	e, ok := r.entries[name]
	if !ok {
		return e, fmt.Errorf("unknown %s %q (known: %s)", r.kind, name, strings.Join(r.Names(), ", "))
	}
	return e, nil
}

// Must panics on a registration error: for the built-in registries, where
// a taken name is a programming error.
func Must(err error) {
	if err != nil {
		panic(err)
	}
}
