package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"sync"
)

// cacheProbe tells whether the caches a stage needs are cold, so that the
// stage is held to its cold budget. Each stage is judged by what it needs,
// never by another stage: a warm cluster cache says nothing of the Go build
// cache. A probe is asked once; stages that need the same caches (a
// module's compile and its tests) share it.
type cacheProbe struct {
	check func(ctx context.Context) (cold bool, why string, err error)

	once sync.Once
	cold bool
	why  string
}

// judge runs the check once and returns whether the caches are cold and a
// few words on why. A check that fails counts as cold: a stage is never
// held to a warm budget on a guess.
func (p *cacheProbe) judge(ctx context.Context) (bool, string) {
	p.once.Do(func() {
		cold, why, err := p.check(ctx)
		if err != nil {
			cold, why = true, "cold: "+err.Error()
		}
		p.cold, p.why = cold, why
	})
	return p.cold, p.why
}

// staleShare is the share of packages missing from the Go build cache past
// which a build is cold: a warm cache misses only what changed.
const staleShare = 0.25

// goBuildCache probes the Go build cache for building the packages of the
// modules in dirs and their tests (with the race detector when race is
// set): cold when more than staleShare of them are not in it.
func goBuildCache(dirs []string, race bool) *cacheProbe {
	return &cacheProbe{check: func(ctx context.Context) (bool, string, error) {
		var stale, all int
		for _, dir := range dirs {
			s, a, err := stalePackages(ctx, dir, race)
			if err != nil {
				return true, "", err
			}
			stale, all = stale+s, all+a
		}
		if all > 0 && float64(stale) > staleShare*float64(all) {
			return true, fmt.Sprintf("cold: %d of %d packages not in the Go build cache", stale, all), nil
		}
		return false, fmt.Sprintf("warm: %d of %d packages to build", stale, all), nil
	}}
}

// stalePackages counts the packages (and test packages) of the module in
// dir, with their dependencies, that go would have to build, and all of
// them.
func stalePackages(ctx context.Context, dir string, race bool) (stale, all int, err error) {
	args := []string{"list", "-e", "-deps", "-test", "-f", "{{.Stale}}"}
	if race {
		args = append(args, "-race")
	}
	cmd := exec.CommandContext(ctx, "go", append(args, "./...")...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return 0, 0, fmt.Errorf("listing the packages of %s: %w", dir, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		all++
		if sc.Text() == "true" {
			stale++
		}
	}
	return stale, all, nil
}

// clusterCache probes the test cluster's build cache: cold unless
// `hack/cluster.sh built` says every binary and image `up` needs is cached.
func clusterCache() *cacheProbe {
	return &cacheProbe{check: func(ctx context.Context) (bool, string, error) {
		if err := exec.CommandContext(ctx, "./hack/cluster.sh", "built").Run(); err != nil {
			return true, "cold: the cluster's binaries are not all built", nil
		}
		return false, "warm: the cluster's binaries are built", nil
	}}
}
