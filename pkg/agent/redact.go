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

// credentialFlag matches a flag named like a credential that may take its
// value from the next argument ("--db-token VALUE"). The next argument is
// redacted unless it is a flag itself (as after a switch like
// "--anonymous-auth").
var credentialFlag = regexp.MustCompile(`(?i)^--?[a-z0-9._-]*` + credentialName + `[a-z0-9._-]*$`)

// looksLikeFlag matches an argument that is a flag rather than a value.
var looksLikeFlag = regexp.MustCompile(`^--?[A-Za-z]`)

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
	// takes its value from the start of args. Each argument is judged as it
	// was, not as an earlier one's redaction left it.
	argv := make([]*string, 0, len(command)+len(args))
	for i := range command {
		argv = append(argv, &command[i])
	}
	for i := range args {
		argv = append(argv, &args[i])
	}
	valueOfCredentialFlag := false
	for _, a := range argv {
		arg := *a
		switch {
		case valueOfCredentialFlag && !looksLikeFlag.MatchString(arg):
			*a = Redacted
		default:
			if loc := credentialArg.FindStringIndex(arg); loc != nil {
				*a = arg[:loc[1]] + Redacted
			}
		}
		valueOfCredentialFlag = credentialFlag.MatchString(arg)
	}
}
