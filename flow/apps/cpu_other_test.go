//go:build !unix

package apps

func cpuSeconds() float64 { return 0 }
