package deploy

import (
	"fmt"
	"slices"
	"sort"
	"strings"

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

// key orders and tells groups apart: the layout's identity, then the minor.
func (g Group) key() string { return g.Layout.identity() + "\n" + g.Minor.String() }

// GroupNodes groups nodes by layout and kubelet minor; nodes of a minor
// podsrc does not reproduce are left out and returned apart. The default
// group comes first, then the others by layout and minor; nodes are
// sorted in each. Without nodes to deploy to there is one default group of
// the fallback layout and the newest minor, so that nodes added later are
// covered.
//
// The default group is the one of defaultNode when it is given, else the
// one with the most nodes. Nothing a node answers can make its group the
// default without being the most common: equal counts are an error that
// asks for defaultNode (--default-layout), never a choice by hash.
func GroupNodes(nodes []NodeLayout, fallback Layout, defaultNode string) (groups []Group, unsupported []NodeLayout, err error) {
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
		if defaultNode != "" {
			return nil, nil, fmt.Errorf("--default-layout=%s: no node podsrc deploys to has that name", defaultNode)
		}
		return []Group{{Layout: fallback, Minor: kubeletminor.Supported[len(kubeletminor.Supported)-1], Default: true}}, unsupported, nil
	}
	groups = make([]Group, 0, len(byKey))
	for _, g := range byKey {
		sort.Strings(g.Nodes)
		groups = append(groups, *g)
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i].key() < groups[j].key() })
	def, err := defaultGroup(groups, defaultNode)
	if err != nil {
		return nil, nil, err
	}
	groups[def].Default = true
	groups[0], groups[def] = groups[def], groups[0]
	rest := groups[1:]
	sort.Slice(rest, func(i, j int) bool { return rest[i].key() < rest[j].key() })
	return groups, unsupported, nil
}

// defaultGroup returns the index of the group that holds defaultNode, or,
// without one, of the group with the most nodes; a tie for the most is an
// error naming the tied groups and the flag that settles it.
func defaultGroup(groups []Group, defaultNode string) (int, error) {
	if defaultNode != "" {
		for i, g := range groups {
			if slices.Contains(g.Nodes, defaultNode) {
				return i, nil
			}
		}
		return 0, fmt.Errorf("--default-layout=%s: no node podsrc deploys to has that name", defaultNode)
	}
	most := 0
	var tied []int
	for i, g := range groups {
		switch {
		case len(g.Nodes) > most:
			most, tied = len(g.Nodes), []int{i}
		case len(g.Nodes) == most:
			tied = append(tied, i)
		}
	}
	if len(tied) == 1 {
		return tied[0], nil
	}
	// Named by their first nodes, in node order, so that the message does
	// not depend on hashes either.
	sort.Slice(tied, func(i, j int) bool { return groups[tied[i]].Nodes[0] < groups[tied[j]].Nodes[0] })
	lines := make([]string, 0, len(tied))
	for _, i := range tied {
		g := groups[i]
		lines = append(lines, fmt.Sprintf("%s (%s, kubelet %s)", nodeNames(g.Nodes), g.Layout, g.Minor))
	}
	return 0, fmt.Errorf("%d layouts have %d %s each, the most, and nodes added later get one of them: say which with --default-layout=NODE, naming a node of that layout: %s",
		len(tied), most, plural(most, "node", "nodes"), strings.Join(lines, "; "))
}

// nodeNames lists nodes for a message, the first five and how many more.
func nodeNames(nodes []string) string {
	const shown = 5
	if len(nodes) <= shown {
		return strings.Join(nodes, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(nodes[:shown], ", "), len(nodes)-shown)
}

// plural returns one for n == 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
