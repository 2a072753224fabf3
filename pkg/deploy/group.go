package deploy

import (
	"sort"

	"github.com/podsrc/podsrc/pkg/kubeletminor"
)

// Group is the nodes of one layout and kubelet minor, deployed as one
// DaemonSet running that minor's agent.
type Group struct {
	Layout Layout
	// Minor is the kubelet minor of the group's nodes.
	Minor kubeletminor.Minor
	Nodes []string
	// Default is the most common group: its DaemonSet runs on every node no
	// other group names, nodes added later included.
	Default bool
}

// key orders and tells groups apart: the layout's hash, then the minor.
func (g Group) key() string { return g.Layout.Hash() + "-" + g.Minor.String() }

// GroupNodes groups nodes by layout and kubelet minor; nodes of a minor
// podsrc does not reproduce are left out and returned apart. The default
// group comes first, then the others by layout hash and minor; nodes are
// sorted in each. Without nodes to deploy to there is one default group of
// the fallback layout and the newest minor, so that nodes added later are
// covered.
func GroupNodes(nodes []NodeLayout, fallback Layout) (groups []Group, unsupported []NodeLayout) {
	byKey := map[string]*Group{}
	for _, n := range nodes {
		if !n.Minor.Supported() {
			unsupported = append(unsupported, n)
			continue
		}
		g := &Group{Layout: n.Layout, Minor: n.Minor}
		if have := byKey[g.key()]; have != nil {
			g = have
		} else {
			byKey[g.key()] = g
		}
		g.Nodes = append(g.Nodes, n.Node)
	}
	if len(byKey) == 0 {
		return []Group{{Layout: fallback, Minor: kubeletminor.Supported[len(kubeletminor.Supported)-1], Default: true}}, unsupported
	}
	groups = make([]Group, 0, len(byKey))
	for _, g := range byKey {
		sort.Strings(g.Nodes)
		groups = append(groups, *g)
	}
	// The most nodes first; equal counts by key, so that the choice is the
	// same on every run.
	sort.Slice(groups, func(i, j int) bool {
		if len(groups[i].Nodes) != len(groups[j].Nodes) {
			return len(groups[i].Nodes) > len(groups[j].Nodes)
		}
		return groups[i].key() < groups[j].key()
	})
	groups[0].Default = true
	rest := groups[1:]
	sort.Slice(rest, func(i, j int) bool { return rest[i].key() < rest[j].key() })
	return groups, unsupported
}
