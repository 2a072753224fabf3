// Command newminor registers a new kubelet minor: it writes the minor's
// agent module from the newest one's and lists the minor everywhere the
// build, the images, the suite, deploy and the docs list minors
// (internal/minorsites). hack/new-minor.sh runs it:
//
//	hack/new-minor.sh 1.38                     # k8s.io/kubernetes's newest v1.38.x
//	hack/new-minor.sh 1.38 --version v1.38.1
//
// What it cannot do is docs/development.md's checklist.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/podsrc/podsrc/internal/minorsites"
	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

// Options are newminor's arguments.
type Options struct {
	// Root is the repository's root.
	Root string
	// Minor is the new minor as given, such as "1.38".
	Minor string
	// Version is the k8s.io/kubernetes version to link; empty asks the go
	// command for the minor's newest release.
	Version string
	// NoTidy leaves go mod tidy in the new module to the caller.
	NoTidy bool

	minor kubeletminor.Minor
}

// Complete parses the minor and, when no version is given, asks for the
// minor's newest release.
func (o *Options) Complete(ctx context.Context, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("want one argument, the new minor (such as 1.38), got %d", len(args))
	}
	o.Minor = args[0]
	m, err := kubeletminor.Of(strings.TrimPrefix(o.Minor, "v") + ".0")
	if err != nil {
		return fmt.Errorf("the new minor %q: %w", o.Minor, err)
	}
	o.minor = m
	if o.Version == "" {
		if o.Version, err = minorsites.LatestPatch(ctx, o.Root, m); err != nil {
			return err
		}
	}
	return nil
}

// Validate checks the root holds agent modules.
func (o *Options) Validate() error {
	if _, err := os.Stat(filepath.Join(o.Root, minorsites.AgentModuleDir)); err != nil {
		return fmt.Errorf("--root %q is not podsrc's repository: %w", o.Root, err)
	}
	return nil
}

// Run registers the minor and says what is left to do.
func (o *Options) Run(ctx context.Context) error {
	g := minorsites.Registration{Root: o.Root, Minor: o.minor, Version: o.Version, Tidy: !o.NoTidy}
	if err := g.Register(ctx); err != nil {
		return err
	}
	fmt.Printf("registered kubelet %s (k8s.io/kubernetes %s) in %s/kubelet1%d and in:\n", o.minor, o.Version, minorsites.AgentModuleDir, int(o.minor))
	seen := map[string]bool{}
	for _, s := range minorsites.Sites {
		if !seen[s.Path] {
			seen[s.Path] = true
			fmt.Printf("  %s\n", s.Path)
		}
	}
	fmt.Println("next: the checklist in docs/development.md (\"A new kubelet minor\")")
	return nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	o := &Options{}
	fs := pflag.NewFlagSet("newminor", pflag.ContinueOnError)
	fs.StringVar(&o.Root, "root", ".", "the repository's root")
	fs.StringVar(&o.Version, "version", "", "the k8s.io/kubernetes version the new module links (default: the minor's newest release)")
	fs.BoolVar(&o.NoTidy, "no-tidy", false, "do not run go mod tidy in the new module")
	err := fs.Parse(os.Args[1:])
	if errors.Is(err, pflag.ErrHelp) {
		return
	}
	if err == nil {
		err = o.Complete(ctx, fs.Args())
	}
	if err == nil {
		err = o.Validate()
	}
	if err == nil {
		err = o.Run(ctx)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "new-minor: %v\n", err)
		os.Exit(1)
	}
}
