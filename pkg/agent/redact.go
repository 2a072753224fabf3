package agent

import (
	"regexp"

	v1 "k8s.io/api/core/v1"

	"github.com/podsrc/podsrc/pkg/merge"
)

// Redacted replaces every value the agent does not expose.
const Redacted = "<redacted>"

// exposedAnnotations are the annotations served as they are; any other
// annotation's value may carry a secret (last-applied-configuration holds
// the whole spec) and is redacted.
var exposedAnnotations = map[string]bool{
	merge.ConfigSourceAnnotation: true,
	merge.ConfigSeenAnnotation:   true,
	merge.ConfigHashAnnotation:   true,
	merge.ConfigMirrorAnnotation: true,
}

// credentialName is what names a credential in a flag or variable.
const credentialName = `(pass(word|wd)?|secret|token|api[-_]?key|credential|private[-_]?key|auth)`

// credentialArg matches a command-line argument that carries what looks like
// a credential: a flag or variable named like one, with its value.
var credentialArg = regexp.MustCompile(`(?i)` + credentialName + `[^=:]*[=:]`)

// credentialFlag matches a flag named like a credential that takes its value
// from the next argument ("--db-token VALUE").
var credentialFlag = regexp.MustCompile(`(?i)^--?[a-z0-9._-]*` + credentialName + `[a-z0-9._-]*$`)

// redactPod returns a copy of pod without env values, credential-looking
// literal arguments and non-allowlisted annotation values. It never changes
// pod itself.
func redactPod(pod *v1.Pod) *v1.Pod {
	p := pod.DeepCopy()
	for k := range p.Annotations {
		if !exposedAnnotations[k] {
			p.Annotations[k] = Redacted
		}
	}
	redactContainers(p.Spec.InitContainers)
	redactContainers(p.Spec.Containers)
	for i := range p.Spec.EphemeralContainers {
		redactContainer(&p.Spec.EphemeralContainers[i].EphemeralContainerCommon.Env, p.Spec.EphemeralContainers[i].Command, p.Spec.EphemeralContainers[i].Args)
	}
	return p
}

func redactContainers(cs []v1.Container) {
	for i := range cs {
		redactContainer(&cs[i].Env, cs[i].Command, cs[i].Args)
	}
}

func redactContainer(env *[]v1.EnvVar, command, args []string) {
	for i := range *env {
		if (*env)[i].Value != "" {
			(*env)[i].Value = Redacted
		}
	}
	// Command and args are one command line: a flag at the end of command
	// takes its value from the start of args.
	argv := make([]*string, 0, len(command)+len(args))
	for i := range command {
		argv = append(argv, &command[i])
	}
	for i := range args {
		argv = append(argv, &args[i])
	}
	for i, a := range argv {
		switch {
		case credentialFlag.MatchString(*a):
			if i+1 < len(argv) {
				*argv[i+1] = Redacted
			}
		default:
			if loc := credentialArg.FindStringIndex(*a); loc != nil {
				*a = (*a)[:loc[1]] + Redacted
			}
		}
	}
}
