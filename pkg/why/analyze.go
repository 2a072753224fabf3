package why

import (
	"fmt"

	"github.com/podsrc/podsrc/pkg/api/v1alpha1"
)

// result is a stage's verdict and the fix to suggest when the report
// stops at it.
type result struct {
	stage v1alpha1.WhyStage
	fix   string
}

// analysis walks one subject's pipeline.
type analysis struct {
	f    Facts
	done map[string]string
}

// Analyze returns the report of the facts: every stage of the subject's
// pipeline with its verdict, the first failing stage (or, when none
// fails, the first unknown one) and the fix it calls for.
func Analyze(f Facts) v1alpha1.WhyReport {
	a := &analysis{f: f, done: map[string]string{}}
	var steps []func() result
	switch f.Subject.Source {
	case v1alpha1.SourceFile:
		steps = []func() result{a.file, a.decode, a.shadow, a.config, a.admission, a.mirror, a.sandbox, a.containers}
	case v1alpha1.SourceHTTP:
		steps = []func() result{a.url, a.config, a.admission, a.mirror, a.sandbox, a.containers}
	default:
		steps = []func() result{a.binding, a.apiSource, a.config, a.admission, a.sandbox, a.containers}
	}
	r := v1alpha1.WhyReport{
		TypeMeta: v1alpha1.TypeMetaFor(v1alpha1.KindWhyReport),
		NodeName: f.Node,
		Target:   f.Target.Raw,
		Pod:      a.pod(),
		Verdict:  v1alpha1.VerdictOK,
		Stages:   []v1alpha1.WhyStage{},
	}
	var firstUnknown *result
	for _, step := range steps {
		res := step()
		a.done[res.stage.Name] = res.stage.Verdict
		r.Stages = append(r.Stages, res.stage)
		switch res.stage.Verdict {
		case v1alpha1.VerdictFailing:
			if r.Verdict != v1alpha1.VerdictFailing {
				r.Verdict, r.Stage, r.Suggestion = v1alpha1.VerdictFailing, res.stage.Name, res.fix
			}
		case v1alpha1.VerdictUnknown:
			if firstUnknown == nil {
				firstUnknown = &res
			}
		}
	}
	if r.Verdict == v1alpha1.VerdictOK && firstUnknown != nil {
		r.Verdict, r.Stage, r.Suggestion = v1alpha1.VerdictUnknown, firstUnknown.stage.Name, firstUnknown.fix
	}
	return r
}

// pod identifies the subject.
func (a *analysis) pod() v1alpha1.WhyPod {
	s := a.f.Subject
	p := v1alpha1.WhyPod{Namespace: s.Namespace, Name: s.Name, Source: s.Source, Origin: s.Path}
	if s.Info != nil {
		p.UID, p.ConfigHash = s.Info.UID, s.Info.ConfigHash
		p.Origin = s.Info.Origin
	}
	return p
}

// ok, failing and unknown make a stage's result.
func ok(name, msg string, evidence ...string) result {
	return result{stage: v1alpha1.WhyStage{Name: name, Verdict: v1alpha1.VerdictOK, Message: msg, Evidence: evidence}}
}

func failing(name, msg, fix string, evidence ...string) result {
	return result{stage: v1alpha1.WhyStage{Name: name, Verdict: v1alpha1.VerdictFailing, Message: msg, Evidence: evidence}, fix: fix}
}

func unknown(name, msg, fix string, evidence ...string) result {
	return result{stage: v1alpha1.WhyStage{Name: name, Verdict: v1alpha1.VerdictUnknown, Message: msg, Evidence: evidence}, fix: fix}
}

// blocked returns the unknown result of a stage that an earlier stage it
// needs keeps from being reached, and false when those stages are ok.
func (a *analysis) blocked(name string, needs ...string) (result, bool) {
	for _, n := range needs {
		if v, ran := a.done[n]; ran && v != v1alpha1.VerdictOK {
			return unknown(name, fmt.Sprintf("not reached: stage %s is %s", n, v), ""), true
		}
	}
	return result{}, false
}

// podRef names the subject's pod as namespace/name.
func (a *analysis) podRef() string {
	return a.f.Subject.Namespace + "/" + a.f.Subject.Name
}
