package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/spf13/cobra"

	"github.com/podsrc/podsrc/pkg/archive"
	"github.com/podsrc/podsrc/pkg/client"
)

// offlineCommands are the commands that read an archive (kubectl podsrc
// record) with --from instead of a node's agent.
func offlineCommands() []string {
	return []string{"sources", "pods", "pod", "pleg", "events", "watch", "why", "version"}
}

// fromHelp is --from's help.
const fromHelp = "Read an archive that kubectl podsrc record wrote instead of the node's agent: no cluster is needed, and the archive names its node."

// addFromFlags binds --from to every offline command under root, which
// stops serving the archive when it ends.
func addFromFlags(root *cobra.Command, o *CommonOptions) {
	for _, c := range root.Commands() {
		if !slices.Contains(offlineCommands(), c.Name()) || c.RunE == nil {
			continue
		}
		c.Flags().StringVar(&o.From, "from", o.From, fromHelp)
		_ = c.MarkFlagFilename("from", "tar.gz", "tgz")
		run := c.RunE
		c.RunE = func(cmd *cobra.Command, args []string) error {
			defer o.closeArchive()
			return run(cmd, args)
		}
	}
}

// offline is the archive --from names, once read, and its API served in
// memory.
type offline struct {
	archive *archive.Archive
	server  *archive.Server
}

// openArchive reads the archive --from names, once.
func (o *CommonOptions) openArchive() (*archive.Archive, error) {
	if o.offline != nil {
		return o.offline.archive, nil
	}
	a, err := archive.ReadFile(o.From, o.MaxBytes.Value())
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return nil, fmt.Errorf("--from: %w", err)
	}
	if err != nil {
		return nil, err
	}
	o.offline = &offline{archive: a}
	return a, nil
}

// archiveConnector returns the connector of --from: the archive's agent
// API, served in memory, reached as one agent is with --agent-url.
func (o *CommonOptions) archiveConnector(c *client.Connector) (*client.Connector, error) {
	a, err := o.openArchive()
	if err != nil {
		return nil, err
	}
	if o.offline.server == nil {
		if o.offline.server, err = archive.Serve(a); err != nil {
			return nil, err
		}
	}
	c.Via, c.AgentURL, c.Transport = client.ViaDirect, "http://archive", o.offline.server.Transport
	return c, nil
}

// archiveNodes returns the node of the archive --from names; the nodes
// named must be that one.
func (o *CommonOptions) archiveNodes(names []string) ([]string, error) {
	a, err := o.openArchive()
	if err != nil {
		return nil, err
	}
	node := a.Manifest.NodeName
	for _, n := range names {
		if n != "" && n != node {
			return nil, fmt.Errorf("the archive %s recorded node %q, not %q: name that node, or none", o.From, node, n)
		}
	}
	return []string{node}, nil
}

// closeArchive stops serving the archive --from named, if any.
func (o *CommonOptions) closeArchive() {
	if o.offline != nil && o.offline.server != nil {
		_ = o.offline.server.Close()
		o.offline.server = nil
	}
}

// archiveFacts are why's facts of the API server with --from: the Node
// object the archive recorded, and no other, the API server not asked.
func (o *CommonOptions) archiveFacts() clusterFacts {
	c := clusterFacts{skipped: "read from the archive " + o.From + ": the API server was not asked"}
	if o.offline != nil {
		c.recorded = o.offline.archive.Node
	}
	return c
}
