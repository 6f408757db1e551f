//go:build !unix

package static

func cpuSeconds() float64 { return 0 }
