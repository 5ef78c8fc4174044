//go:build !kubevirt_liveupdate

package main

import (
	"fmt"
	"os"
)

// liveUpdateMain without the live-update mode: it needs KubeVirt's VM controller, whose
// construction differs between releases, so it is built only with -tags kubevirt_liveupdate
// (README.md, "Live updates").
func liveUpdateMain(string, string, string) int {
	fmt.Fprintln(os.Stderr, "kvlint-oracle: built without the live-update mode (-tags kubevirt_liveupdate)")
	return 2
}
