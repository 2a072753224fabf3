package cri

import (
	"testing"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

func TestVerifyStatus(t *testing.T) {
	goodSandbox := func() *runtimeapi.PodSandboxStatus {
		return &runtimeapi.PodSandboxStatus{Id: "s", CreatedAt: 1, Metadata: &runtimeapi.PodSandboxMetadata{Name: "n", Namespace: "ns", Uid: "u"}}
	}
	goodContainer := func() *runtimeapi.ContainerStatus {
		return &runtimeapi.ContainerStatus{Id: "c", CreatedAt: 1, Metadata: &runtimeapi.ContainerMetadata{Name: "n"}, Image: &runtimeapi.ImageSpec{Image: "i"}, ImageRef: "r"}
	}
	tests := []struct {
		name    string
		check   func() error
		wantErr bool
	}{
		{name: "sandbox ok", check: func() error { return verifySandboxStatus(goodSandbox()) }},
		{name: "sandbox without id", wantErr: true, check: func() error { s := goodSandbox(); s.Id = ""; return verifySandboxStatus(s) }},
		{name: "sandbox without metadata", wantErr: true, check: func() error { s := goodSandbox(); s.Metadata = nil; return verifySandboxStatus(s) }},
		{name: "sandbox without uid", wantErr: true, check: func() error { s := goodSandbox(); s.Metadata.Uid = ""; return verifySandboxStatus(s) }},
		{name: "sandbox without creation time", wantErr: true, check: func() error { s := goodSandbox(); s.CreatedAt = 0; return verifySandboxStatus(s) }},
		{name: "container ok", check: func() error { return verifyContainerStatus(goodContainer()) }},
		{name: "container without name", wantErr: true, check: func() error { c := goodContainer(); c.Metadata.Name = ""; return verifyContainerStatus(c) }},
		{name: "container without image", wantErr: true, check: func() error { c := goodContainer(); c.Image = nil; return verifyContainerStatus(c) }},
		{name: "container without image ref", wantErr: true, check: func() error { c := goodContainer(); c.ImageRef = ""; return verifyContainerStatus(c) }},
		{name: "container without creation time", wantErr: true, check: func() error { c := goodContainer(); c.CreatedAt = 0; return verifyContainerStatus(c) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.check(); (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error %v", err, tt.wantErr)
			}
		})
	}
}
