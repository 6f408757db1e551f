package spec

import (
	"os"
	"strings"
	"testing"
)

// TestBudget: a budget in MiB refuses estimates above it with a message
// naming what, the estimate and the budget; 0 is the machine's memory;
// out of range is refused naming the key and flag.
func TestBudget(t *testing.T) {
	b, err := NewBudget(1024)
	if err != nil || b.Bytes != 1<<30 {
		t.Fatalf("1024 MiB: %+v, %v", b, err)
	}
	if err := b.Check(1<<30, "x"); err != nil {
		t.Errorf("the budget itself refused: %v", err)
	}
	err = b.Check(3<<29, "--apps 5")
	if err == nil || !strings.Contains(err.Error(), "--apps 5: this run would take about 1.5 GiB of memory, more than the budget of 1.0 GiB (--memory-budget-mb or memory_budget_mb: 1024)") {
		t.Errorf("over the budget: %v", err)
	}
	if err := b.CheckAtLeast(2<<30, "y"); err == nil || !strings.Contains(err.Error(), "would take more than 2.0 GiB") {
		t.Errorf("a lower bound over the budget: %v", err)
	}
	for _, mb := range []int64{-1, MaxBudgetMB + 1} {
		if _, err := NewBudget(mb); err == nil || !strings.Contains(err.Error(), "memory_budget_mb (--memory-budget-mb)") {
			t.Errorf("%d MiB: %v", mb, err)
		}
	}
	if m, err := NewBudget(0); err != nil || !strings.Contains(m.From, "this machine's memory") {
		t.Errorf("0: %+v, %v", m, err)
	}
	if (Budget{}).Check(1<<62, "z") != nil {
		t.Error("an unknown budget refused")
	}
	if got := AddBytes(1<<61, 1<<61, 5); got != 1<<62 {
		t.Errorf("AddBytes saturates at 2^62: %d", got)
	}
	if got := MulBytes(1<<40, 1<<40); got != 1<<62 {
		t.Errorf("MulBytes saturates at 2^62: %d", got)
	}
	if got := MulBytes(3, 5); got != 15 {
		t.Errorf("MulBytes(3, 5) = %d", got)
	}
	for _, c := range []struct {
		b    int64
		want string
	}{{5 << 20, "5 MiB"}, {3 << 29, "1.5 GiB"}, {5 << 40, "5.0 TiB"}} {
		if got := Size(c.b); got != c.want {
			t.Errorf("Size(%d) = %q, want %q", c.b, got, c.want)
		}
	}
}

// TestFileBudget: a graph file is refused while it is read once its
// nodes, then its links, pass the budget (8 + 40 B a node, 52 + 24 B a
// link, one worker).
func TestFileBudget(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/g.txt"
	if err := writeFile(path, "servers 100000\nswitches 1\n"); err != nil {
		t.Fatal(err)
	}
	// 100,001 nodes at 48 B: 4.6 MiB, over 4 MiB.
	c := Config{Topology: Topology{Kind: KindFile, File: path}, Workers: 1}
	b, _ := NewBudget(4)
	if _, err := c.BuildWithin(b, nil); err == nil || !strings.Contains(err.Error(), "g.txt:2: a graph of 100001 nodes") {
		t.Errorf("over the budget: %v", err)
	}
	b, _ = NewBudget(5)
	if _, err := c.BuildWithin(b, nil); err != nil {
		t.Errorf("within the budget: %v", err)
	}
}

func writeFile(path, text string) error { return os.WriteFile(path, []byte(text), 0o644) }
