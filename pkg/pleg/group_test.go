package pleg

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/podsrc/podsrc/pkg/cri"
)

func sandboxObj(id, uid string, attempt uint32, created int64, st runtimeapi.PodSandboxState) *runtimeapi.PodSandbox {
	return &runtimeapi.PodSandbox{
		Id:        id,
		Metadata:  &runtimeapi.PodSandboxMetadata{Uid: uid, Name: "n-" + uid, Namespace: "ns", Attempt: attempt},
		State:     st,
		CreatedAt: created,
	}
}

func containerObj(id, uid string, created int64, st runtimeapi.ContainerState) *runtimeapi.Container {
	return &runtimeapi.Container{
		Id:        id,
		Metadata:  &runtimeapi.ContainerMetadata{Name: "c-" + id},
		Image:     &runtimeapi.ImageSpec{Image: "img"},
		State:     st,
		CreatedAt: created,
		Labels:    map[string]string{cri.LabelPodUID: uid, cri.LabelPodName: "n-" + uid, cri.LabelPodNamespace: "ns"},
	}
}

func ids(es []entry) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.id+":"+string(e.state))
	}
	return out
}

func TestGroup(t *testing.T) {
	ready, notReady := runtimeapi.PodSandboxState_SANDBOX_READY, runtimeapi.PodSandboxState_SANDBOX_NOTREADY
	running, exited := runtimeapi.ContainerState_CONTAINER_RUNNING, runtimeapi.ContainerState_CONTAINER_EXITED
	noImage := containerObj("c-noimage", "p1", 5, running)
	noImage.Image = nil
	noMeta := containerObj("c-nometa", "p1", 5, running)
	noMeta.Metadata = nil
	tests := []struct {
		name       string
		sandboxes  []*runtimeapi.PodSandbox
		containers []*runtimeapi.Container
		// want maps pod UID to its sandboxes and containers as "id:state".
		want map[types.UID][2][]string
	}{
		{
			name:       "newest first, then by ID",
			sandboxes:  []*runtimeapi.PodSandbox{sandboxObj("s-old", "p1", 0, 1, notReady), sandboxObj("s-new", "p1", 0, 9, ready)},
			containers: []*runtimeapi.Container{containerObj("c-b", "p1", 3, exited), containerObj("c-a", "p1", 3, running), containerObj("c-new", "p1", 7, running)},
			want: map[types.UID][2][]string{
				"p1": {{"s-new:running", "s-old:exited"}, {"c-new:running", "c-a:running", "c-b:exited"}},
			},
		},
		{
			name:      "higher attempt first whatever the creation time",
			sandboxes: []*runtimeapi.PodSandbox{sandboxObj("s-a1", "p1", 1, 1, ready), sandboxObj("s-a0", "p1", 0, 9, notReady)},
			want: map[types.UID][2][]string{
				"p1": {{"s-a1:running", "s-a0:exited"}, {}},
			},
		},
		{
			name:      "unknown sandbox state",
			sandboxes: []*runtimeapi.PodSandbox{sandboxObj("s1", "p1", 0, 1, runtimeapi.PodSandboxState(7))},
			want:      map[types.UID][2][]string{"p1": {{"s1:unknown"}, {}}},
		},
		{
			name:       "containers without a sandbox make their own pod",
			containers: []*runtimeapi.Container{containerObj("c1", "p2", 1, runtimeapi.ContainerState_CONTAINER_CREATED)},
			want:       map[types.UID][2][]string{"p2": {{}, {"c1:created"}}},
		},
		{
			name:       "a container without image makes its pod known but is skipped",
			containers: []*runtimeapi.Container{noImage},
			want:       map[types.UID][2][]string{"p1": {{}, {}}},
		},
		{
			name:       "a container without metadata is ignored",
			containers: []*runtimeapi.Container{noMeta},
			want:       map[types.UID][2][]string{},
		},
		{
			name:      "a sandbox without ID makes its pod known but is skipped",
			sandboxes: []*runtimeapi.PodSandbox{sandboxObj("", "p3", 0, 1, ready)},
			want:      map[types.UID][2][]string{"p3": {{}, {}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := podList{byUID: map[types.UID]*podSnapshot{}}
			group(&pl, tt.sandboxes, tt.containers)
			got := map[types.UID][2][]string{}
			for uid, p := range pl.byUID {
				got[uid] = [2][]string{ids(p.sandboxes), ids(p.containers)}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}
