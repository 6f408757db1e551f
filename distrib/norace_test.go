//go:build !race

package distrib

const raceDetector = false
