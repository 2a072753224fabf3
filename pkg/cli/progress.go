package cli

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/kubectl/pkg/util/term"

	podsrcprinters "github.com/podsrc/podsrc/pkg/printers"
)

// progressInterval is how often the progress line is drawn; a fan-out
// done sooner shows none.
const progressInterval = 500 * time.Millisecond

// Terminal is a terminal that the progress line of a fan-out is drawn on:
// stderr when it is a terminal.
type Terminal struct {
	Out io.Writer
	// Width is the terminal's width in columns; the line is cut to fit.
	Width int
	// Ticks, when set, draws the line instead of a timer (tests).
	Ticks <-chan time.Time
}

// stderrTerminal returns stderr as a Terminal, or nil when it is not a
// terminal a line can be redrawn on.
func stderrTerminal(errOut io.Writer) *Terminal {
	if !printers.IsTerminal(errOut) || os.Getenv("TERM") == "dumb" {
		return nil
	}
	// As for colours: older Windows consoles print the sequences.
	if runtime.GOOS == "windows" && os.Getenv("WT_SESSION") == "" {
		return nil
	}
	t := &Terminal{Out: errOut, Width: 80}
	if size := (term.TTY{Out: errOut}).GetSize(); size != nil && size.Width > 0 {
		t.Width = int(size.Width)
	}
	return t
}

// progress shows on a terminal which nodes a fan-out still waits for
// ("waiting for 2/120 nodes: a, b"), on one line that it redraws and
// clears when the fan-out ends.
type progress struct {
	term  *Terminal
	total int

	mu      sync.Mutex
	pending []string
	shown   bool
	stopped bool
	stop    chan struct{}
	done    chan struct{}
}

// startProgress starts drawing the line for nodes on t; nil when t is nil
// (all methods of a nil progress do nothing).
func startProgress(t *Terminal, nodes []string) *progress {
	if t == nil {
		return nil
	}
	p := &progress{term: t, total: len(nodes), pending: slices.Clone(nodes), stop: make(chan struct{}), done: make(chan struct{})}
	ticks := t.Ticks
	var ticker *time.Ticker
	if ticks == nil {
		ticker = time.NewTicker(progressInterval)
		ticks = ticker.C
	}
	go func() {
		defer close(p.done)
		if ticker != nil {
			defer ticker.Stop()
		}
		for {
			select {
			case <-p.stop:
				return
			case <-ticks:
				p.draw()
			}
		}
	}()
	return p
}

// answered takes node off the line and runs print, which may print the
// node's answer, with the line cleared; the line is drawn again after it.
func (p *progress) answered(node string, print func()) {
	if p == nil {
		print()
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if i := slices.Index(p.pending, node); i >= 0 {
		p.pending = slices.Delete(p.pending, i, i+1)
	}
	p.aroundLocked(print)
}

// aroundLocked runs print with the line cleared, and draws it again after.
func (p *progress) aroundLocked(print func()) {
	if p.shown {
		fmt.Fprint(p.term.Out, "\r"+clearToEnd)
	}
	print()
	if p.shown {
		p.drawLocked()
	}
}

// guard returns w, the terminal's writer or one that shares its screen
// (stderr), made to clear the line before each write and draw it again
// after, so that nothing is written after the line's text; w itself when p
// is nil.
func (p *progress) guard(w io.Writer) io.Writer {
	if p == nil {
		return w
	}
	return guardedWriter{p: p, w: w}
}

// guardedWriter is a writer whose writes clear the progress line first.
type guardedWriter struct {
	p *progress
	w io.Writer
}

// Write implements io.Writer.
func (g guardedWriter) Write(b []byte) (n int, err error) {
	g.p.mu.Lock()
	defer g.p.mu.Unlock()
	g.p.aroundLocked(func() { n, err = g.w.Write(b) })
	return n, err
}

// draw shows the line.
func (p *progress) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drawLocked()
}

func (p *progress) drawLocked() {
	if p.stopped || len(p.pending) == 0 {
		return
	}
	p.shown = true
	fmt.Fprint(p.term.Out, "\r"+progressLine(p.pending, p.total, p.term.Width)+clearToEnd)
}

// finish stops drawing and clears the line, so that what is printed next
// starts on a clean line.
func (p *progress) finish() {
	if p == nil {
		return
	}
	close(p.stop)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = true
	if p.shown {
		fmt.Fprint(p.term.Out, "\r"+clearToEnd)
		p.shown = false
	}
}

// clearToEnd erases from the cursor to the end of the line.
const clearToEnd = "\x1b[K"

// progressLine is the text of the line, cut to width-1 columns so that it
// never wraps (a wrapped line cannot be redrawn with a carriage return).
func progressLine(pending []string, total, width int) string {
	names := make([]string, len(pending))
	for i, n := range pending {
		names[i] = podsrcprinters.EscapeControls(n)
	}
	line := fmt.Sprintf("waiting for %d/%d nodes: %s", len(pending), total, strings.Join(names, ", "))
	limit := max(width-1, 20)
	if r := []rune(line); len(r) > limit {
		line = string(r[:limit-1]) + "…"
	}
	return line
}
