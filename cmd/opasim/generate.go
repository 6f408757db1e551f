package main

// The CLI reference in docs/reference is generated from the command tree
// (internal/clidoc); TestCLIReference fails when it is out of date.
//go:generate go test -run ^TestCLIReference$ . -update-reference
