package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// startProfiles starts a CPU profile (if cpu is set) and an execution
// trace (if exec is set) and returns the function that stops them and
// writes a heap profile (if mem is set).
func startProfiles(cpu, mem, exec string) (func() error, error) {
	var cpuFile, traceFile *os.File
	if exec != "" {
		f, err := os.Create(exec)
		if err != nil {
			return nil, fmt.Errorf("--exectrace: %w", err)
		}
		if err := trace.Start(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("--exectrace: %w", err)
		}
		traceFile = f
	}
	if cpu != "" {
		f, err := os.Create(cpu)
		if err != nil {
			if traceFile != nil {
				trace.Stop()
				traceFile.Close()
			}
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			if traceFile != nil {
				trace.Stop()
				traceFile.Close()
			}
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
		cpuFile = f
	}
	return func() error {
		if traceFile != nil {
			trace.Stop()
			if err := traceFile.Close(); err != nil {
				return err
			}
		}
		if cpuFile != nil {
			pprof.StopCPUProfile()
			if err := cpuFile.Close(); err != nil {
				return err
			}
		}
		if mem == "" {
			return nil
		}
		f, err := os.Create(mem)
		if err != nil {
			return fmt.Errorf("--memprofile: %w", err)
		}
		defer f.Close()
		runtime.GC()
		return pprof.WriteHeapProfile(f)
	}, nil
}
