package cli

import (
	"strings"
	"testing"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
	"github.com/podsrc/podsrc/pkg/archive"
)

// TestRecordedNode: the archive records the node asked for, or with none
// asked for the agent's, a node's name; any answer that names another
// node fails the recording with both names.
func TestRecordedNode(t *testing.T) {
	answers := func(node string) archive.Contents {
		return archive.Contents{
			Version:       v1alpha1.Version{NodeName: node},
			Sources:       v1alpha1.SourceList{NodeName: node, Items: []v1alpha1.Source{{Name: "file"}}},
			Pods:          v1alpha1.PodList{NodeName: node, Items: []v1alpha1.PodInfo{{Namespace: "kube-system", Name: "etcd"}}},
			PodDetails:    v1alpha1.PodList{NodeName: node, Items: []v1alpha1.PodInfo{{Namespace: "kube-system", Name: "etcd"}}},
			PLEG:          v1alpha1.PLEGStatus{NodeName: node},
			KubeletConfig: &v1alpha1.KubeletConfig{NodeName: node},
		}
	}
	tests := []struct {
		name   string
		named  string
		change func(*archive.Contents)
		want   string
	}{
		{name: "the node asked for", named: "node-1"},
		{name: "the agent's, none asked for"},
		{name: "names left empty", named: "node-1", change: func(c *archive.Contents) {
			*c = archive.Contents{}
		}},
		{name: "version", named: "node-1", change: func(c *archive.Contents) { c.Version.NodeName = "node-2" }, want: `the agent of node "node-1" names node "node-2" in its version`},
		{name: "sources", named: "node-1", change: func(c *archive.Contents) { c.Sources.NodeName = "node-2" }, want: `names node "node-2" in its sources`},
		{name: "pods", named: "node-1", change: func(c *archive.Contents) { c.Pods.NodeName = "node-2" }, want: `names node "node-2" in its pods`},
		{name: "pod details", named: "node-1", change: func(c *archive.Contents) { c.PodDetails.NodeName = "node-2" }, want: `names node "node-2" in its pod details`},
		{name: "PLEG", named: "node-1", change: func(c *archive.Contents) { c.PLEG.NodeName = "node-2" }, want: `names node "node-2" in its PLEG status`},
		{name: "kubelet configuration", named: "node-1", change: func(c *archive.Contents) { c.KubeletConfig.NodeName = "node-2" }, want: `names node "node-2" in its kubelet configuration`},
		{name: "a source", named: "node-1", change: func(c *archive.Contents) { c.Sources.Items[0].NodeName = "node-2" }, want: `names node "node-2" in its source "file"`},
		{name: "a pod", named: "node-1", change: func(c *archive.Contents) { c.Pods.Items[0].NodeName = "node-2" }, want: `names node "node-2" in its pod "kube-system/etcd"`},
		{name: "a pod's details", named: "node-1", change: func(c *archive.Contents) { c.PodDetails.Items[0].NodeName = "node-2" }, want: `names node "node-2" in its pod "kube-system/etcd"`},
		{name: "none asked for, the agent's another", change: func(c *archive.Contents) { c.Sources.NodeName = "node-2" }, want: `the agent of node "node-1" names node "node-2" in its sources`},
		{name: "none asked for, not a name", change: func(c *archive.Contents) { c.Version.NodeName = "\x1b]0;pwned\a" }, want: `the agent's version names node "\x1b]0;pwned\a", which is not a node's name`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := answers("node-1")
			if tc.change != nil {
				tc.change(&c)
			}
			err := recordedNode(tc.named, &c)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("recordedNode = %v, want an error with %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("recordedNode = %v", err)
			}
			for what, got := range map[string]string{"version": c.Version.NodeName, "sources": c.Sources.NodeName, "pods": c.Pods.NodeName, "pod details": c.PodDetails.NodeName, "PLEG": c.PLEG.NodeName} {
				if got != "node-1" {
					t.Errorf("the %s name node %q, want node-1", what, got)
				}
			}
		})
	}
}
