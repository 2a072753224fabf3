package cri

import (
	"fmt"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// verifySandboxStatus rejects a sandbox status that lacks fields the kubelet's
// CRI client requires; the kubelet then treats the status call as failed.
func verifySandboxStatus(s *runtimeapi.PodSandboxStatus) error {
	switch {
	case s.Id == "":
		return fmt.Errorf("sandbox status without id")
	case s.Metadata == nil:
		return fmt.Errorf("sandbox status %s without metadata", s.Id)
	case s.Metadata.Name == "" || s.Metadata.Namespace == "" || s.Metadata.Uid == "":
		return fmt.Errorf("sandbox status %s: metadata lacks name, namespace or uid", s.Id)
	case s.CreatedAt == 0:
		return fmt.Errorf("sandbox status %s without creation time", s.Id)
	}
	return nil
}

// verifyContainerStatus rejects a container status that lacks fields the
// kubelet's CRI client requires; the kubelet then treats the status call as
// failed.
func verifyContainerStatus(s *runtimeapi.ContainerStatus) error {
	switch {
	case s.Id == "":
		return fmt.Errorf("container status without id")
	case s.Metadata == nil:
		return fmt.Errorf("container status %s without metadata", s.Id)
	case s.Metadata.Name == "":
		return fmt.Errorf("container status %s: metadata lacks name", s.Id)
	case s.CreatedAt == 0:
		return fmt.Errorf("container status %s without creation time", s.Id)
	case s.Image == nil || s.Image.Image == "":
		return fmt.Errorf("container status %s without image", s.Id)
	case s.ImageRef == "":
		return fmt.Errorf("container status %s without image ref", s.Id)
	}
	return nil
}
