package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/podsrc/podsrc/internal/version"
	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/archive"
	"github.com/podsrc/podsrc/pkg/client"
	"github.com/podsrc/podsrc/pkg/printers"
)

// RecordOptions are the options of kubectl podsrc record.
type RecordOptions struct {
	*CommonOptions
	Nodes NodeFlags
	// Since is --since, Output -o (the archive's file, - for stdout),
	// MaxSize --max-size.
	Since   string
	Output  string
	MaxSize resource.QuantityValue

	since *v1alpha1.Mark
}

// NewCmdRecord returns the record command.
func NewCmdRecord(common *CommonOptions) *cobra.Command {
	o := &RecordOptions{CommonOptions: common, MaxSize: resource.QuantityValue{Quantity: *resource.NewQuantity(archive.DefaultMaxSize, resource.BinarySI)}}
	cmd := &cobra.Command{
		Use:   "record NODE -o FILE",
		Short: "Write what a node's agent knows to an archive that the other commands read offline with --from",
		Long: longDesc(`
			Write one portable archive (a gzip-compressed tar file) of what the agent
			of a node knows: its version and the kubelet version it reproduces, its
			sources, its pods (each also as pod shows it, with the pod its source
			defined), its PLEG's status, the kubelet configuration it read (masked)
			and its events (all it keeps, or those after --since), with the Node
			object from the API server. The archive records the node named: an agent
			whose answers name another node fails the recording. A manifest
			(manifest.json, the archive's first member) lists every member with its
			SHA-256, and what the archive left out and why.

			sources, pods, pod, pleg, events, watch, why and version read an archive
			with --from FILE instead of the node's agent, with no cluster: anyone can
			read a colleague's archive (why takes the Node object from it, and asks
			the API server nothing else). An age given to their --since counts back from
			now, not from the recording; sequence numbers name the same events.

			What the agent serves is redacted as it is live (no secret leaves the
			node unless the agent runs with --expose-pod-specs). The members
			together stay within --max-size: the oldest events go first, as a gap,
			and the manifest says so. The text of the static pod manifests and URL
			bodies is not recorded yet: no agent serves it.`),
		Example: templates.Examples(`
			# Everything node-1's agent keeps
			kubectl podsrc record node-1 -o node-1.tar.gz

			# The last hour, then read it offline
			kubectl podsrc record node-1 --since=1h -o node-1.tar.gz
			kubectl podsrc events --from=node-1.tar.gz`),
		ValidArgsFunction: completeNodes(common),
		RunE:              runOptions(o),
	}
	cmd.Flags().StringVar(&o.Since, "since", o.Since, "Record the events after this event sequence number, those of this last while (a duration such as 1h), or those since this RFC 3339 time. Default: every event the agent keeps.")
	cmd.Flags().StringVarP(&o.Output, "output", "o", o.Output, "The archive's file (- for stdout); it is written whole or not at all.")
	cmd.Flags().Var(&o.MaxSize, "max-size", "The most the archive's members hold, together, uncompressed (such as 64Mi): the oldest events are left out first.")
	_ = cmd.MarkFlagFilename("output", "tar.gz", "tgz")
	return cmd
}

// Complete fills in the node and parses --since.
func (o *RecordOptions) Complete(args []string) error {
	o.Nodes.Names = args
	var err error
	o.since, err = parseMarkFlag("--since", o.Since, o.Now())
	return err
}

// Validate checks the options.
func (o *RecordOptions) Validate() error {
	if err := o.CommonOptions.Validate(); err != nil {
		return err
	}
	if o.Output == "" {
		return fmt.Errorf("-o: name the archive's file (such as -o node-1.tar.gz), or - for stdout")
	}
	if o.MaxSize.Value() <= 0 {
		return fmt.Errorf("--max-size %s: want a size such as 64Mi", o.MaxSize.String())
	}
	if o.Nodes.Selecting() || len(o.Nodes.Names) > 1 {
		return fmt.Errorf("record writes the archive of one node: name one")
	}
	o.Nodes.MaxConcurrency = 1
	return o.Nodes.Validate(o.CommonOptions)
}

// Run records the node and writes the archive.
func (o *RecordOptions) Run(ctx context.Context) error {
	results, err := agentCallEach(ctx, o.CommonOptions, &o.Nodes, func(ctx context.Context, a *client.Agent, _ NodeVersion) (archive.Contents, error) {
		return o.gather(ctx, a)
	}, nil)
	if err != nil {
		return err
	}
	return finish(results, o.ErrOut, func(contents []archive.Contents) error {
		return o.write(contents[0])
	})
}

// gather reads what the archive holds from the agent and the API server.
func (o *RecordOptions) gather(ctx context.Context, a *client.Agent) (archive.Contents, error) {
	var c archive.Contents
	v, err := a.Version(ctx)
	if err != nil {
		return c, err
	}
	c.Version = *v
	s, err := a.Sources(ctx)
	if err != nil {
		return c, err
	}
	c.Sources = *s
	p, err := a.Pods(ctx, v1alpha1.PodQuery{})
	if err != nil {
		return c, err
	}
	c.Pods = *p
	var gone []v1alpha1.ArchiveOmission
	if c.PodDetails, gone, err = podDetails(ctx, a, p); err != nil {
		return c, err
	}
	pleg, err := a.PLEG(ctx)
	if err != nil {
		return c, err
	}
	c.PLEG = *pleg
	kc, err := a.KubeletConfig(ctx)
	switch {
	case stopsRecording(ctx, err):
		return c, err
	case err != nil:
		c.LeftOut = append(c.LeftOut, v1alpha1.ArchiveOmission{What: v1alpha1.ArchiveKubeletConfigMember, Reason: err.Error()})
	default:
		c.KubeletConfig = kc
		if kc.Config == nil {
			c.LeftOut = append(c.LeftOut, v1alpha1.ArchiveOmission{What: "the kubelet's configuration", Reason: kc.Reason})
		}
	}
	var dropped uint64
	if c.Window, c.Events, dropped, err = a.Window(ctx, o.since, o.MaxSize.Value()); err != nil {
		return c, err
	}
	if dropped > 0 {
		gap, omission := archive.Trimmed(c.Window.Epoch, c.Window.Since+1, dropped)
		c.Events = append([]v1alpha1.StreamMessage{gap}, c.Events...)
		c.LeftOut = append(c.LeftOut, omission)
	}
	if err := recordedNode(a.Node, &c); err != nil {
		return c, err
	}
	c.Node, err = o.node(ctx, c.Version.NodeName)
	if err != nil {
		c.LeftOut = append(c.LeftOut, v1alpha1.ArchiveOmission{What: v1alpha1.ArchiveNodeMember, Reason: err.Error()})
	}
	c.LeftOut = append(c.LeftOut, gone...)
	c.LeftOut = append(c.LeftOut, v1alpha1.ArchiveOmission{What: "the text of the static pod manifests and URL bodies",
		Reason: "no agent serves it yet; " + v1alpha1.ArchivePodDetailsMember + " holds the pods they define, redacted as the agent serves them"})
	return c, nil
}

// podDetails asks the agent for each pod of l. A pod it did not answer
// for (gone since, or refused) is left out, and said why; the agent's
// failure to answer at all fails the recording.
func podDetails(ctx context.Context, a *client.Agent, l *v1alpha1.PodList) (v1alpha1.PodList, []v1alpha1.ArchiveOmission, error) {
	out := v1alpha1.PodList{TypeMeta: l.TypeMeta, NodeName: l.NodeName, Items: []v1alpha1.PodInfo{}}
	var gone []v1alpha1.ArchiveOmission
	for _, p := range l.Items {
		info, err := a.Pod(ctx, string(p.UID))
		if stopsRecording(ctx, err) {
			return out, nil, err
		}
		if err != nil {
			gone = append(gone, v1alpha1.ArchiveOmission{What: fmt.Sprintf("the details of pod %s/%s (%s)", p.Namespace, p.Name, v1alpha1.ArchivePodDetailsMember), Reason: err.Error()})
			continue
		}
		out.Items = append(out.Items, *info)
	}
	return out, gone, nil
}

// stopsRecording reports whether err, of a request that an archive can do
// without, says that the agent does not answer at all, or that the
// command's bounds are reached: then the recording fails.
func stopsRecording(ctx context.Context, err error) bool {
	if err == nil {
		return false
	}
	switch client.ReasonOf(err) {
	case client.ReasonTimeout, client.ReasonTooLarge, client.ReasonConnectionRefused, client.ReasonUnavailable:
		return true
	}
	return ctx.Err() != nil
}

// write writes the archive of c to -o, whole or not at all, and says what
// it holds and left out: on stdout, or on stderr when the archive goes
// there.
func (o *RecordOptions) write(c archive.Contents) error {
	opts := archive.WriteOptions{MaxSize: o.MaxSize.Value(), RecordedAt: o.Now(), RecorderVersion: version.Version}
	report := o.Out
	var m *v1alpha1.ArchiveManifest
	if o.Output == "-" {
		report = o.ErrOut
		var err error
		if m, err = archive.Write(o.Out, c, opts); err != nil {
			return err
		}
	} else if err := writeFileAtomically(o.Output, func(w io.Writer) error {
		var err error
		m, err = archive.Write(w, c, opts)
		return err
	}); err != nil {
		return err
	}
	printRecorded(report, o.Output, m)
	return nil
}

// printRecorded says what the archive file holds and left out.
func printRecorded(w io.Writer, file string, m *v1alpha1.ArchiveManifest) {
	names := make([]string, 0, len(m.Members))
	var size int64
	for _, mem := range m.Members {
		names = append(names, mem.Name)
		size += mem.Size
	}
	printers.PrintLine(w, "recorded node %s to %s: %s (%d bytes uncompressed)", m.NodeName, file, strings.Join(names, ", "), size)
	printers.PrintLine(w, "events %d to %d: %d events, %d gaps", m.Events.Since+1, m.Events.Until, m.Events.Events, m.Events.Gaps)
	for _, l := range m.LeftOut {
		printers.PrintLine(w, "left out: %s: %s", l.What, l.Reason)
	}
}

// writeFileAtomically writes path with write, through a file beside it
// that replaces it only once written and synced.
func writeFileAtomically(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("writing the archive %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if err := write(f); err != nil {
		return fmt.Errorf("writing the archive %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("writing the archive %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing the archive %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("writing the archive %s: %w", path, err)
	}
	return nil
}

// node returns the Node object of name from the API server, or why not.
func (o *RecordOptions) node(ctx context.Context, name string) (*corev1.Node, error) {
	if o.AgentURL != "" && !o.hasClusterConfig() {
		return nil, fmt.Errorf("no cluster configuration (--kubeconfig, --context or --server) was given with --agent-url")
	}
	cs, err := o.Clientset()
	if err != nil {
		return nil, err
	}
	n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("getting node %s from the API server: %w", name, err)
	}
	// Who changed which field when is not the node's state.
	n.ManagedFields = nil
	return n, nil
}
