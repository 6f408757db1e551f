package main

// The Kubernetes manifests and the container image of deploy/, checked
// without a cluster: each manifest is decoded strictly into the Kubernetes
// API's own types (k8s.io/api), so a misspelt field or a value of the
// wrong type fails; the API server's rules for names, labels and Jobs that
// bear on them are applied; the fields that make the sharding work are
// checked, and the shards' and the merge's command lines are parsed by
// opasim's own flags for every completion index.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	k8syaml "sigs.k8s.io/yaml"

	"github.com/opasim/opasim/sweep"
)

// decodeStrict reads the one YAML document of deploy/name into v, one of
// the Kubernetes API's own types (k8s.io/api), as the API server decodes
// it: a field the type does not have, a field given twice or a value of
// the wrong type is an error; apiVersion and kind must be want's.
func decodeStrict(t *testing.T, name string, v runtime.Object, want schema.GroupVersionKind) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "deploy", name))
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var first, extra any
	if err := dec.Decode(&first); err != nil {
		t.Fatalf("deploy/%s: %v", name, err)
	}
	if err := dec.Decode(&extra); err == nil {
		t.Fatalf("deploy/%s: more than one document", name)
	}
	if err := k8syaml.UnmarshalStrict(data, v); err != nil {
		t.Fatalf("deploy/%s: %v", name, err)
	}
	if got := v.GetObjectKind().GroupVersionKind(); got != want {
		t.Fatalf("deploy/%s: %s, want %s", name, got, want)
	}
}

// validateMeta applies the API server's rules for names and labels
// (k8s.io/apimachinery's validation): a DNS-1123 subdomain as name,
// qualified names as label keys, valid label values.
func validateMeta(t *testing.T, name string, m metav1.ObjectMeta, named bool) {
	t.Helper()
	if named {
		for _, e := range validation.IsDNS1123Subdomain(m.Name) {
			t.Errorf("%s: metadata.name %q: %s", name, m.Name, e)
		}
	}
	for k, v := range m.Labels {
		for _, e := range append(validation.IsQualifiedName(k), validation.IsValidLabelValue(v)...) {
			t.Errorf("%s: label %s=%s: %s", name, k, v, e)
		}
	}
}

// validateJob applies the API server's rules for a batch/v1 Job that
// bear on these manifests (Kubernetes' Job validation, 1.28 to today): the
// restart policy is Never or OnFailure, and Never with a pod failure
// policy; an Indexed Job sets completions; backoffLimitPerIndex needs an
// Indexed Job and at most 100,000 completions and parallelism; a pod
// failure policy's exit codes name one of the pod's containers, with the
// operator In or NotIn, values in [0, 255] strictly increasing, and no 0
// under In.
func validateJob(t *testing.T, name string, job *batchv1.Job) {
	t.Helper()
	validateMeta(t, name, job.ObjectMeta, true)
	validateMeta(t, name+" template", job.Spec.Template.ObjectMeta, false)
	s := job.Spec
	pod := s.Template.Spec
	if rp := pod.RestartPolicy; rp != corev1.RestartPolicyNever && rp != corev1.RestartPolicyOnFailure {
		t.Errorf("%s: restartPolicy %q: a Job's must be Never or OnFailure", name, rp)
	}
	indexed := s.CompletionMode != nil && *s.CompletionMode == batchv1.IndexedCompletion
	if s.CompletionMode != nil && !indexed && *s.CompletionMode != batchv1.NonIndexedCompletion {
		t.Errorf("%s: completionMode %q is neither Indexed nor NonIndexed", name, *s.CompletionMode)
	}
	if indexed && s.Completions == nil {
		t.Errorf("%s: an Indexed Job without completions", name)
	}
	if s.BackoffLimitPerIndex != nil {
		if !indexed {
			t.Errorf("%s: backoffLimitPerIndex on a Job that is not Indexed", name)
		}
		for _, p := range []*int32{s.Completions, s.Parallelism} {
			if p != nil && *p > 100000 {
				t.Errorf("%s: %d completions or parallelism with backoffLimitPerIndex (at most 100,000)", name, *p)
			}
		}
	}
	if p := s.PodFailurePolicy; p != nil {
		if pod.RestartPolicy != corev1.RestartPolicyNever {
			t.Errorf("%s: a podFailurePolicy needs restartPolicy Never, not %q", name, pod.RestartPolicy)
		}
		for i, r := range p.Rules {
			if (r.OnExitCodes == nil) == (len(r.OnPodConditions) == 0) {
				t.Errorf("%s: podFailurePolicy rule %d: exactly one of onExitCodes and onPodConditions", name, i)
			}
			if r.Action == batchv1.PodFailurePolicyActionFailIndex && s.BackoffLimitPerIndex == nil {
				t.Errorf("%s: podFailurePolicy rule %d: FailIndex without backoffLimitPerIndex", name, i)
			}
			c := r.OnExitCodes
			if c == nil {
				continue
			}
			if c.ContainerName != nil && !slices.ContainsFunc(pod.Containers, func(k corev1.Container) bool { return k.Name == *c.ContainerName }) {
				t.Errorf("%s: podFailurePolicy rule %d names container %q, which the pod does not have", name, i, *c.ContainerName)
			}
			if c.Operator != batchv1.PodFailurePolicyOnExitCodesOpIn && c.Operator != batchv1.PodFailurePolicyOnExitCodesOpNotIn {
				t.Errorf("%s: podFailurePolicy rule %d: operator %q, want In or NotIn", name, i, c.Operator)
			}
			for k, v := range c.Values {
				if v < 0 || v > 255 || (k > 0 && v <= c.Values[k-1]) || (v == 0 && c.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn) {
					t.Errorf("%s: podFailurePolicy rule %d: exit codes %v: each in [0, 255], increasing, no 0 under In", name, i, c.Values)
				}
			}
		}
	}
	for _, c := range pod.Containers {
		for _, e := range validation.IsDNS1123Label(c.Name) {
			t.Errorf("%s: container name %q: %s", name, c.Name, e)
		}
		for _, env := range c.Env {
			for _, e := range validation.IsEnvVarName(env.Name) {
				t.Errorf("%s: env %q: %s", name, env.Name, e)
			}
		}
	}
	for _, v := range pod.Volumes {
		for _, e := range validation.IsDNS1123Label(v.Name) {
			t.Errorf("%s: volume name %q: %s", name, v.Name, e)
		}
	}
}

// goMemLimit reads GOMEMLIMIT's "900MiB" form.
func goMemLimit(t *testing.T, s string) float64 {
	t.Helper()
	m := regexp.MustCompile(`^([0-9]+)(KiB|MiB|GiB)$`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("GOMEMLIMIT %q: not of a form this test reads", s)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v * map[string]float64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[m[2]]
}

// dockerfile is what the test reads of deploy/Dockerfile: the stages'
// bases, the final stage's user and entrypoint.
type dockerfile struct {
	froms      []string // the FROM lines, as written
	user       string   // USER of the last stage
	entrypoint []string
	text       string
}

func readDockerfile(t *testing.T) dockerfile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "deploy", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	d := dockerfile{text: string(data)}
	for _, line := range strings.Split(d.text, "\n") {
		word, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch strings.ToUpper(word) {
		case "FROM":
			d.froms = append(d.froms, rest)
			d.user = ""
		case "USER":
			d.user = rest
		case "ENTRYPOINT":
			if err := json.Unmarshal([]byte(rest), &d.entrypoint); err != nil {
				t.Fatalf("Dockerfile: ENTRYPOINT %s is not in exec form: %v", rest, err)
			}
		}
	}
	return d
}

// TestDockerfile: a multi-stage build, the Go of go.mod's go directive, a
// static binary copied onto a base that is not the build image, a non-root
// user, an entrypoint in exec form.
func TestDockerfile(t *testing.T) {
	d := readDockerfile(t)
	if len(d.froms) < 2 {
		t.Fatalf("Dockerfile: %d stages, want a build stage and a runtime stage", len(d.froms))
	}
	gomod, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go ([0-9.]+)$`).FindSubmatch(gomod)
	if goVersion == nil || !strings.HasPrefix(d.froms[0], "golang:"+string(goVersion[1])) || !strings.HasSuffix(d.froms[0], " AS build") {
		t.Errorf("Dockerfile: build stage FROM %s, want golang:%s... AS build", d.froms[0], goVersion[1])
	}
	last := d.froms[len(d.froms)-1]
	if strings.HasPrefix(last, "golang") {
		t.Errorf("Dockerfile: the runtime stage is the build image %s", last)
	}
	for _, w := range []string{"CGO_ENABLED=0", "COPY --from=build /out/opasim " + d.entrypoint[0], "./cmd/opasim"} {
		if !strings.Contains(d.text, w) {
			t.Errorf("Dockerfile lacks %q", w)
		}
	}
	uid, _, _ := strings.Cut(d.user, ":")
	if n, err := strconv.Atoi(uid); err != nil || n == 0 {
		t.Errorf("Dockerfile: USER %q, want a numeric non-root user (Kubernetes' runAsNonRoot checks a number)", d.user)
	}
}

// sweepRunner parses args (the words after "sweep") with the flags of
// opasim sweep and builds the runner, checking every flag and config as
// the command does, without running anything.
func sweepRunner(args []string) (*sweep.Runner, error) {
	var f sweepFlags
	fs := pflag.NewFlagSet("sweep", pflag.ContinueOnError)
	f.register(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("positional arguments %q", fs.Args())
	}
	return f.runner(fs)
}

// TestSweepJobManifest: deploy/sweep-job.yaml is an Indexed Job of N
// completions and N pods at once, whose container runs opasim sweep with
// --shard taken from JOB_COMPLETION_INDEX; for every index 0..N-1 the
// command line, expanded as Kubernetes expands $(VAR), is accepted by
// opasim's flags and is shard i/N writing under the shared volume; the
// restart policy, retries, resources and security settings are those the
// docs describe; deploy/merge-job.yaml merges exactly the N shard
// directories on the same claim, which deploy/sweep-pvc.yaml declares
// ReadWriteMany; the image's user and entrypoint are the manifests'.
func TestSweepJobManifest(t *testing.T) {
	var job, merge batchv1.Job
	var pvc corev1.PersistentVolumeClaim
	jobKind := batchv1.SchemeGroupVersion.WithKind("Job")
	decodeStrict(t, "sweep-job.yaml", &job, jobKind)
	decodeStrict(t, "merge-job.yaml", &merge, jobKind)
	decodeStrict(t, "sweep-pvc.yaml", &pvc, corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim"))
	validateJob(t, "sweep-job.yaml", &job)
	validateJob(t, "merge-job.yaml", &merge)
	validateMeta(t, "sweep-pvc.yaml", pvc.ObjectMeta, true)
	docker := readDockerfile(t)

	if job.Spec.CompletionMode == nil || *job.Spec.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("sweep-job.yaml: completionMode %v; want Indexed", job.Spec.CompletionMode)
	}
	if job.Spec.Completions == nil || job.Spec.Parallelism == nil || *job.Spec.Completions < 1 || *job.Spec.Parallelism != *job.Spec.Completions {
		t.Fatalf("sweep-job.yaml: completions %s, parallelism %s; want both N >= 1 (every shard at once)",
			intOrUnset(job.Spec.Completions), intOrUnset(job.Spec.Parallelism))
	}
	n := int(*job.Spec.Completions)
	pod := job.Spec.Template.Spec
	checkPod(t, "sweep-job.yaml", pod, docker)
	if job.Spec.BackoffLimitPerIndex == nil || *job.Spec.BackoffLimitPerIndex < 1 {
		t.Errorf("sweep-job.yaml: backoffLimitPerIndex %s, want retries per index", intOrUnset(job.Spec.BackoffLimitPerIndex))
	}
	c := pod.Containers[0]
	failJobOn2 := false
	if p := job.Spec.PodFailurePolicy; p != nil {
		for _, r := range p.Rules {
			if r.Action == batchv1.PodFailurePolicyActionFailJob && r.OnExitCodes != nil &&
				r.OnExitCodes.ContainerName != nil && *r.OnExitCodes.ContainerName == c.Name &&
				r.OnExitCodes.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn && slices.Contains(r.OnExitCodes.Values, 2) {
				failJobOn2 = true
			}
		}
	}
	if !failJobOn2 {
		t.Error("sweep-job.yaml: no podFailurePolicy rule failing the Job on exit status 2 (bad input) of the container")
	}

	indexFromEnv := false
	for _, e := range c.Env {
		if e.Name == "JOB_COMPLETION_INDEX" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil &&
			e.ValueFrom.FieldRef.FieldPath == "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
			indexFromEnv = true
		}
	}
	if !indexFromEnv {
		t.Error("sweep-job.yaml: JOB_COMPLETION_INDEX is not taken from the completion index annotation")
	}
	if len(c.Args) == 0 || c.Args[0] != "sweep" {
		t.Fatalf("sweep-job.yaml: args %q, want opasim sweep", c.Args)
	}
	wantShard := fmt.Sprintf("--shard=$(JOB_COMPLETION_INDEX)/%d", n)
	if !slices.Contains(c.Args, wantShard) {
		t.Errorf("sweep-job.yaml: args %q lack %s (N = completions)", c.Args, wantShard)
	}
	mount := mountOf(t, "sweep-job.yaml", pod)
	cpus := c.Resources.Requests.Cpu().AsApproximateFloat64()
	var outs []string
	for i := range n {
		args := expand(t, c.Args[1:], i)
		r, err := sweepRunner(args)
		if err != nil {
			t.Fatalf("sweep-job.yaml, index %d: opasim sweep %q: %v", i, args, err)
		}
		if r.Shard != (sweep.Shard{Index: i, Count: n}) {
			t.Errorf("index %d runs shard %s", i, r.Shard)
		}
		if !strings.HasPrefix(r.Dir, mount+"/") || slices.Contains(outs, r.Dir) {
			t.Errorf("index %d writes %s: not its own directory under the volume mounted at %s", i, r.Dir, mount)
		}
		if float64(r.Jobs) != cpus {
			t.Errorf("index %d: --jobs %d, but the pod requests %v CPUs (one run per CPU)", i, r.Jobs, cpus)
		}
		outs = append(outs, r.Dir)
	}

	if merge.Spec.CompletionMode != nil && *merge.Spec.CompletionMode == batchv1.IndexedCompletion {
		t.Error("merge-job.yaml: an Indexed Job; want a plain Job")
	}
	checkPod(t, "merge-job.yaml", merge.Spec.Template.Spec, docker)
	m := merge.Spec.Template.Spec.Containers[0]
	if m.Image != c.Image {
		t.Errorf("merge-job.yaml: image %s, the shards run %s", m.Image, c.Image)
	}
	if len(m.Args) < 2 || m.Args[0] != "sweep" || m.Args[1] != "merge" {
		t.Fatalf("merge-job.yaml: args %q, want opasim sweep merge", m.Args)
	}
	cmd := newSweepMergeCmd()
	if err := cmd.ParseFlags(m.Args[2:]); err != nil {
		t.Fatalf("merge-job.yaml: %v", err)
	}
	mergeOut, _ := cmd.Flags().GetString("out")
	if dirs := cmd.Flags().Args(); !slices.Equal(dirs, outs) {
		t.Errorf("merge-job.yaml merges %q; the shards write %q", dirs, outs)
	}
	if mm := mountOf(t, "merge-job.yaml", merge.Spec.Template.Spec); mm != mount || !strings.HasPrefix(mergeOut, mount+"/") {
		t.Errorf("merge-job.yaml: --out %s on the volume mounted at %s; the shards' is mounted at %s", mergeOut, mm, mount)
	}

	claim := func(p corev1.PodSpec) string { return p.Volumes[0].PersistentVolumeClaim.ClaimName }
	if pvc.Name != claim(pod) || claim(merge.Spec.Template.Spec) != claim(pod) {
		t.Errorf("sweep-pvc.yaml declares %s; the shards mount %s, the merge %s", pvc.Name, claim(pod), claim(merge.Spec.Template.Spec))
	}
	if !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteMany) {
		t.Errorf("sweep-pvc.yaml: access modes %v: pods on several nodes write it at once, want ReadWriteMany", pvc.Spec.AccessModes)
	}
}

// checkPod: one container running the image's entrypoint, as the image's
// non-root user, restartPolicy Never (required by backoffLimitPerIndex and
// podFailurePolicy), CPU and memory requested and limited, GOMEMLIMIT
// below the memory limit, no privilege escalation, one volume from a
// persistent volume claim.
func checkPod(t *testing.T, name string, pod corev1.PodSpec, docker dockerfile) {
	t.Helper()
	if len(pod.Containers) != 1 {
		t.Fatalf("%s: %d containers, want 1", name, len(pod.Containers))
	}
	c := pod.Containers[0]
	if pod.RestartPolicy != "Never" {
		t.Errorf("%s: restartPolicy %q, want Never", name, pod.RestartPolicy)
	}
	if !slices.Equal(c.Command, docker.entrypoint) {
		t.Errorf("%s: command %q, the image's entrypoint is %q", name, c.Command, docker.entrypoint)
	}
	uid, _, _ := strings.Cut(docker.user, ":")
	sc := pod.SecurityContext
	if sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || strconv.FormatInt(*sc.RunAsUser, 10) != uid || sc.FSGroup == nil {
		t.Errorf("%s: securityContext %+v, want runAsNonRoot, runAsUser %s (the image's USER) and an fsGroup", name, sc, uid)
	}
	if c.SecurityContext.AllowPrivilegeEscalation == nil || *c.SecurityContext.AllowPrivilegeEscalation {
		t.Errorf("%s: allowPrivilegeEscalation is not false", name)
	}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, okReq := c.Resources.Requests[r]
		lim, okLim := c.Resources.Limits[r]
		if !okReq || !okLim {
			t.Errorf("%s: resources of %s: request %s, limit %s; want both", name, r, req.String(), lim.String())
		} else if lim.Cmp(req) < 0 {
			t.Errorf("%s: %s limit %s below its request %s", name, r, lim.String(), req.String())
		}
	}
	for _, e := range c.Env {
		if e.Name == "GOMEMLIMIT" {
			if lim, ok := c.Resources.Limits[corev1.ResourceMemory]; ok && goMemLimit(t, e.Value) >= lim.AsApproximateFloat64() {
				t.Errorf("%s: GOMEMLIMIT %s is not below the memory limit %s", name, e.Value, lim.String())
			}
		}
	}
	if len(pod.Volumes) != 1 || pod.Volumes[0].PersistentVolumeClaim == nil {
		t.Fatalf("%s: volumes %+v, want one persistent volume claim", name, pod.Volumes)
	}
}

// mountOf is where the pod's container mounts its volume.
func mountOf(t *testing.T, name string, pod corev1.PodSpec) string {
	t.Helper()
	for _, m := range pod.Containers[0].VolumeMounts {
		if m.Name == pod.Volumes[0].Name {
			return strings.TrimSuffix(m.MountPath, "/")
		}
	}
	t.Fatalf("%s: the volume %s is not mounted", name, pod.Volumes[0].Name)
	return ""
}

// expand replaces $(JOB_COMPLETION_INDEX) by i, as the kubelet expands a
// container's args from its environment; any other $( reference fails the
// test (this test would not know its value).
func expand(t *testing.T, args []string, i int) []string {
	t.Helper()
	out := make([]string, len(args))
	for k, a := range args {
		out[k] = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", strconv.Itoa(i))
		if strings.Contains(out[k], "$(") {
			t.Fatalf("arg %q refers to a variable other than JOB_COMPLETION_INDEX", a)
		}
	}
	return out
}

func intOrUnset(p *int32) string {
	if p == nil {
		return "unset"
	}
	return strconv.Itoa(int(*p))
}
