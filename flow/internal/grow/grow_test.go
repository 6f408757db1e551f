package grow

import "testing"

// TestAppend: below Slack, append's growth; from Slack on, one eighth
// more than the length needed, elements kept.
func TestAppend(t *testing.T) {
	var s []int32
	for i := range 5000 {
		s = Append(s, int32(i))
	}
	for i, x := range s {
		if x != int32(i) {
			t.Fatalf("s[%d] = %d", i, x)
		}
	}
	// The last reallocation: at some length n >= Slack, capacity n + n/8;
	// so cap(s) <= 5000·9/8 and cap(s) - len(s) < cap(s)/9 + 1.
	if c := cap(s); c < 5000 || c > 5625 {
		t.Errorf("cap %d, want in [5000, 5625]", c)
	}
	a := make([]int32, Slack, Slack)
	a = Append(a, 1, 2, 3)
	if len(a) != Slack+3 || cap(a) != Slack+3+(Slack+3)/8 || a[Slack+2] != 3 {
		t.Errorf("len %d cap %d last %d: want %d, %d, 3", len(a), cap(a), a[len(a)-1], Slack+3, Slack+3+(Slack+3)/8)
	}
	b := Append(make([]int32, 10, 10), 7)
	if len(b) != 11 || b[10] != 7 {
		t.Errorf("small: %v", b)
	}
}

// TestShrink: trimmed to twice the peak only past 4·peak + Slack.
func TestShrink(t *testing.T) {
	s := make([]float64, 3, 4*100+Slack)
	if got := Shrink(s, 100); cap(got) != cap(s) {
		t.Errorf("at the bound: cap %d, want kept %d", cap(got), cap(s))
	}
	s = make([]float64, 3, 4*100+Slack+1)
	s[2] = 5
	got := Shrink(s, 100)
	if cap(got) != 200 || len(got) != 3 || got[2] != 5 {
		t.Errorf("past the bound: len %d cap %d, want 3, 200", len(got), cap(got))
	}
	// peak below the length counts as the length
	s = make([]float64, 2000, 20000)
	if got := Shrink(s, 0); cap(got) != 4000 || len(got) != 2000 {
		t.Errorf("peak 0, len 2000: cap %d, want 4000", cap(got))
	}
	if !Oversized(Slack+1, 0) || Oversized(Slack, 0) {
		t.Error("Oversized at Slack")
	}
}

// TestFit: cut to the length only when it was held over the window and
// the slack is over a 32nd.
func TestFit(t *testing.T) {
	s := make([]int32, 2000, 2250)
	s[1999] = 9
	if got := Fit(s, 1999); cap(got) != 2250 {
		t.Errorf("grown in the window: cap %d, want kept 2250", cap(got))
	}
	got := Fit(s, 2000)
	if cap(got) != 2000 || len(got) != 2000 || got[1999] != 9 {
		t.Errorf("held: len %d cap %d, want 2000, 2000", len(got), cap(got))
	}
	if got := Fit(make([]int32, 2000, 2062), 2000); cap(got) != 2062 {
		t.Errorf("slack of a 32nd: cap %d, want kept 2062", cap(got))
	}
	if got := Fit(make([]int32, 100, 500), 100); cap(got) != 500 {
		t.Errorf("below Slack: cap %d, want kept 500", cap(got))
	}
}

// TestPages: elements kept across pages, pages after the first made
// whole, nothing unused beyond the last page.
func TestPages(t *testing.T) {
	var p Pages[int64]
	const n = 5*pageSize + 7
	for i := range n {
		if k := p.Append(int64(i)); k != int32(i) {
			t.Fatalf("Append %d returned %d", i, k)
		}
		*p.At(0) += 0
	}
	if p.Len() != n {
		t.Fatalf("len %d, want %d", p.Len(), n)
	}
	for i := range int32(n) {
		if *p.At(i) != int64(i) {
			t.Fatalf("At(%d) = %d", i, *p.At(i))
		}
	}
	*p.At(n - 5) = -1
	if *p.At(n - 5) != -1 {
		t.Error("At does not address the element")
	}
	if len(p.pages) != 6 || cap(p.pages[5]) != pageSize || cap(p.pages[0]) < pageSize {
		t.Errorf("%d pages, last of capacity %d", len(p.pages), cap(p.pages[len(p.pages)-1]))
	}
}

// TestTight: a capacity over peak + peak/4 + Slack is cut to peak +
// peak/8, keeping the elements; at or under it, s is returned as is.
func TestTight(t *testing.T) {
	s := make([]int, 100, 4000)
	for i := range s {
		s[i] = i
	}
	// 4000 > 2000 + 500 + 1024: cut to 2250.
	if u := Tight(s, 2000); cap(u) != 2250 || len(u) != 100 || u[99] != 99 {
		t.Errorf("Tight(len 100 cap 4000, 2000): len %d cap %d", len(u), cap(u))
	}
	// 3524 is the limit: kept.
	if u := Tight(s[:100:3524], 2000); cap(u) != 3524 {
		t.Errorf("Tight(cap 3524, 2000): cap %d, want 3524", cap(u))
	}
	// The peak is at least the length: 100 elements, peak 0, cap 1124 kept.
	if u := Tight(s[:100:1124], 0); cap(u) != 1124 {
		t.Errorf("Tight(len 100 cap 1124, 0): cap %d, want 1124", cap(u))
	}
	if u := Tight(s[:100:1200], 0); cap(u) != 112 {
		t.Errorf("Tight(len 100 cap 1200, 0): cap %d, want 112", cap(u))
	}
}
