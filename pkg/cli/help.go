package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/klog/v2"
	"k8s.io/kubectl/pkg/util/templates"
)

// useKubectlHelp gives the command tree under root kubectl's help pages:
// commands in groups, each page with its own flags only, and the global
// flags (the cluster's, the agents', -v) listed by kubectl podsrc options.
func useKubectlHelp(root *cobra.Command) {
	groups := templates.CommandGroups{
		{Message: "Inspect nodes:", Commands: commandsNamed(root, "sources", "pods", "pod", "pleg", "events", "watch", "why", "version")},
		{Message: "Install the agents:", Commands: commandsNamed(root, "deploy", "undeploy")},
	}
	templates.ActsAsRootCommand(root, []string{"options"}, groups...)
	// One line: errors are printed with their line feeds escaped.
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%w (see '%s --help')", err, c.CommandPath())
	})
	// kubectl's usage line ends in [options]; cobra's [flags] would repeat it.
	walk(root, func(c *cobra.Command) { c.DisableFlagsInUseLine = true })
	// The template names the root by its binary, kubectl-podsrc: say it
	// as users type it.
	usage := root.UsageFunc()
	root.SetUsageFunc(func(c *cobra.Command) error {
		out := c.OutOrStderr()
		var b bytes.Buffer
		c.SetOut(&b)
		err := usage(c)
		c.SetOut(out)
		_, werr := io.WriteString(out, strings.ReplaceAll(b.String(), `"`+root.Name()+" ", `"`+root.DisplayName()+" "))
		return errors.Join(err, werr)
	})
}

// walk calls f on c and every command under it.
func walk(c *cobra.Command, f func(*cobra.Command)) {
	f(c)
	for _, sub := range c.Commands() {
		walk(sub, f)
	}
}

// commandsNamed returns root's subcommands of those names that exist.
func commandsNamed(root *cobra.Command, names ...string) []*cobra.Command {
	var out []*cobra.Command
	for _, c := range root.Commands() {
		for _, n := range names {
			if c.Name() == n {
				out = append(out, c)
			}
		}
	}
	return out
}

// NewCmdOptions returns the options command, which lists on out the global
// flags that the help pages leave out.
func NewCmdOptions(out io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "options",
		Short:   "Print the flags every command takes",
		Long:    "Print the flags every command takes: the cluster's (--kubeconfig, --context, -n, ...), how the agents are reached and how long to wait for them, and the log level.",
		Example: templates.Examples(`kubectl podsrc options`),
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Usage()
		},
	}
	// Usage writes to the error stream.
	cmd.SetOut(out)
	cmd.SetErr(out)
	templates.UseOptionsTemplates(cmd)
	// kubectl's options help is empty: show the list there too.
	cmd.SetHelpFunc(func(c *cobra.Command, _ []string) { _ = c.Usage() })
	return cmd
}

// addLogFlags binds klog's -v and --vmodule, the two a command-line tool
// keeps of klog's flags, as kubectl does.
func addLogFlags(fs *pflag.FlagSet) {
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	for _, name := range []string{"v", "vmodule"} {
		fs.AddGoFlag(klogFlags.Lookup(name))
	}
}

// longDesc lays out a command's long description for kubectl's help
// template: the common indentation removed and each paragraph on one line,
// which the template wraps to the terminal. Lines that start indented or
// with "- " keep their own line. Unlike templates.LongDesc it reads no
// markdown, which ate the space before <words> and put one before every
// paragraph.
func longDesc(s string) string {
	lines := strings.Split(strings.Trim(s, "\n"), "\n")
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	var b strings.Builder
	joinable := false
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			b.WriteString("\n\n")
			joinable = false
			continue
		}
		l = strings.TrimRight(l[indent:], " \t")
		own := strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "- ")
		switch {
		case joinable && !own:
			b.WriteString(" ")
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "\n"):
			b.WriteString("\n")
		}
		b.WriteString(l)
		joinable = !own
	}
	out := b.String()
	for strings.Contains(out, "\n\n\n") {
		out = strings.ReplaceAll(out, "\n\n\n", "\n\n")
	}
	return strings.TrimSpace(out)
}
