package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/podsrc/podsrc/manifests"
	"github.com/podsrc/podsrc/pkg/deploy"
)

// UndeployOptions are the options of kubectl podsrc undeploy.
type UndeployOptions struct {
	*CommonOptions
	Wait    bool
	Timeout time.Duration

	namespace string
}

// NewCmdUndeploy returns the undeploy command.
func NewCmdUndeploy(common *CommonOptions) *cobra.Command {
	o := &UndeployOptions{CommonOptions: common, Wait: true, Timeout: 2 * time.Minute}
	cmd := &cobra.Command{
		Use:   "undeploy",
		Short: "Remove everything kubectl podsrc deploy made",
		Long: longDesc(`
			Remove what kubectl podsrc deploy made: every agent DaemonSet, the
			ClusterRoleBinding, the ClusterRoles, the ServiceAccount and the
			namespace (only if deploy made it), and say what was removed. Only
			objects labelled app.kubernetes.io/part-of=podsrc are touched. Every
			deletion is checked first, so a caller without the rights removes
			nothing. Running it again removes nothing.`),
		Example: templates.Examples(`
			kubectl podsrc undeploy`),
		Args: cobra.NoArgs,
		RunE: runOptions(o),
	}
	cmd.Flags().BoolVar(&o.Wait, "wait", o.Wait, "Wait until the namespace is gone, so that a new deploy can follow at once.")
	cmd.Flags().DurationVar(&o.Timeout, "timeout", o.Timeout, "How long --wait waits.")
	return cmd
}

// Complete fills in the namespace.
func (o *UndeployOptions) Complete([]string) error {
	o.namespace = o.deployNamespace()
	return nil
}

// Validate checks the options.
func (o *UndeployOptions) Validate() error {
	if o.Direct() {
		return fmt.Errorf("--agent-url talks to one agent; undeploy needs the cluster")
	}
	if o.Timeout <= 0 {
		return fmt.Errorf("--timeout %v: want a positive duration", o.Timeout)
	}
	return nil
}

// Run removes the agent.
func (o *UndeployOptions) Run(ctx context.Context) error {
	c, err := o.deployCluster()
	if err != nil {
		return err
	}
	// The names of the manifest's objects; the DaemonSets are found by
	// label, whatever layouts they had.
	objs, err := deploy.Render(manifests.DaemonSet, deploy.RenderOptions{Namespace: o.namespace, Groups: []deploy.Group{{Default: true}}})
	if err != nil {
		return err
	}
	rm, err := c.Undeploy(ctx, objs, o.namespace, o.Out)
	if err != nil {
		return err
	}
	if len(rm.Objects) == 0 {
		fmt.Fprintf(o.Out, "nothing to remove: no object of kubectl podsrc deploy in the cluster (namespace %s)\n", o.namespace)
		return nil
	}
	if !o.Wait || !rm.Namespace {
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	return c.WaitNamespaceGone(wctx, o.namespace, pollInterval)
}
