package main

// The Kubernetes manifests and the container image of deploy/, checked
// without a cluster: each manifest is decoded strictly (a key this test
// does not know is an error, so a misspelt field fails), the fields that
// make the sharding work are checked, and the shards' and the merge's
// command lines are parsed by opasim's own flags for every completion
// index.

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

	"github.com/opasim/opasim/sweep"
)

type k8sMeta struct {
	Name   string            `yaml:"name"`
	Labels map[string]string `yaml:"labels"`
}

type k8sJob struct {
	APIVersion string  `yaml:"apiVersion"`
	Kind       string  `yaml:"kind"`
	Metadata   k8sMeta `yaml:"metadata"`
	Spec       struct {
		CompletionMode       string `yaml:"completionMode"`
		Completions          *int   `yaml:"completions"`
		Parallelism          *int   `yaml:"parallelism"`
		BackoffLimit         *int   `yaml:"backoffLimit"`
		BackoffLimitPerIndex *int   `yaml:"backoffLimitPerIndex"`
		PodFailurePolicy     *struct {
			Rules []struct {
				Action      string `yaml:"action"`
				OnExitCodes *struct {
					ContainerName string `yaml:"containerName"`
					Operator      string `yaml:"operator"`
					Values        []int  `yaml:"values"`
				} `yaml:"onExitCodes"`
				OnPodConditions []struct {
					Type string `yaml:"type"`
				} `yaml:"onPodConditions"`
			} `yaml:"rules"`
		} `yaml:"podFailurePolicy"`
		Template struct {
			Metadata k8sMeta    `yaml:"metadata"`
			Spec     k8sPodSpec `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type k8sPodSpec struct {
	RestartPolicy   string `yaml:"restartPolicy"`
	SecurityContext struct {
		RunAsNonRoot   *bool  `yaml:"runAsNonRoot"`
		RunAsUser      *int64 `yaml:"runAsUser"`
		RunAsGroup     *int64 `yaml:"runAsGroup"`
		FSGroup        *int64 `yaml:"fsGroup"`
		SeccompProfile struct {
			Type string `yaml:"type"`
		} `yaml:"seccompProfile"`
	} `yaml:"securityContext"`
	Containers []k8sContainer `yaml:"containers"`
	Volumes    []struct {
		Name                  string `yaml:"name"`
		PersistentVolumeClaim *struct {
			ClaimName string `yaml:"claimName"`
		} `yaml:"persistentVolumeClaim"`
	} `yaml:"volumes"`
}

type k8sContainer struct {
	Name            string   `yaml:"name"`
	Image           string   `yaml:"image"`
	ImagePullPolicy string   `yaml:"imagePullPolicy"`
	Command         []string `yaml:"command"`
	Args            []string `yaml:"args"`
	Env             []struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom *struct {
			FieldRef *struct {
				FieldPath string `yaml:"fieldPath"`
			} `yaml:"fieldRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	Resources struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	SecurityContext struct {
		AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
		ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
		Capabilities             struct {
			Drop []string `yaml:"drop"`
		} `yaml:"capabilities"`
	} `yaml:"securityContext"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

type k8sPVC struct {
	APIVersion string  `yaml:"apiVersion"`
	Kind       string  `yaml:"kind"`
	Metadata   k8sMeta `yaml:"metadata"`
	Spec       struct {
		AccessModes []string `yaml:"accessModes"`
		Resources   struct {
			Requests map[string]string `yaml:"requests"`
		} `yaml:"resources"`
		StorageClassName string `yaml:"storageClassName"`
	} `yaml:"spec"`
}

// decodeStrict reads the one YAML document of deploy/name into v; a key v
// has no field for is an error.
func decodeStrict(t *testing.T, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "deploy", name))
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("deploy/%s: %v", name, err)
	}
	var extra any
	if err := dec.Decode(&extra); err == nil {
		t.Fatalf("deploy/%s: more than one document", name)
	}
}

// quantity reads a Kubernetes quantity of the forms the manifests use:
// an integer, millicores ("500m"), or binary suffixes ("1Gi", "512Mi").
func quantity(t *testing.T, s string) float64 {
	t.Helper()
	mult := map[string]float64{"m": 1e-3, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "": 1}
	m := regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)(m|Ki|Mi|Gi|)$`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("quantity %q: not of a form this test reads", s)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v * mult[m[2]]
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
	var job, merge k8sJob
	var pvc k8sPVC
	decodeStrict(t, "sweep-job.yaml", &job)
	decodeStrict(t, "merge-job.yaml", &merge)
	decodeStrict(t, "sweep-pvc.yaml", &pvc)
	docker := readDockerfile(t)

	if job.APIVersion != "batch/v1" || job.Kind != "Job" || job.Spec.CompletionMode != "Indexed" {
		t.Fatalf("sweep-job.yaml: %s %s, completionMode %q; want a batch/v1 Job, Indexed", job.APIVersion, job.Kind, job.Spec.CompletionMode)
	}
	if job.Spec.Completions == nil || job.Spec.Parallelism == nil || *job.Spec.Completions < 1 || *job.Spec.Parallelism != *job.Spec.Completions {
		t.Fatalf("sweep-job.yaml: completions %s, parallelism %s; want both N >= 1 (every shard at once)",
			intOrUnset(job.Spec.Completions), intOrUnset(job.Spec.Parallelism))
	}
	n := *job.Spec.Completions
	pod := job.Spec.Template.Spec
	checkPod(t, "sweep-job.yaml", pod, docker)
	if job.Spec.BackoffLimitPerIndex == nil || *job.Spec.BackoffLimitPerIndex < 1 {
		t.Errorf("sweep-job.yaml: backoffLimitPerIndex %s, want retries per index", intOrUnset(job.Spec.BackoffLimitPerIndex))
	}
	c := pod.Containers[0]
	failJobOn2 := false
	if p := job.Spec.PodFailurePolicy; p != nil {
		for _, r := range p.Rules {
			if r.Action == "FailJob" && r.OnExitCodes != nil && r.OnExitCodes.ContainerName == c.Name &&
				r.OnExitCodes.Operator == "In" && slices.Contains(r.OnExitCodes.Values, 2) {
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
	cpus := quantity(t, c.Resources.Requests["cpu"])
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

	if merge.Kind != "Job" || merge.Spec.CompletionMode == "Indexed" {
		t.Errorf("merge-job.yaml: %s, completionMode %q; want a plain Job", merge.Kind, merge.Spec.CompletionMode)
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

	claim := func(p k8sPodSpec) string { return p.Volumes[0].PersistentVolumeClaim.ClaimName }
	if pvc.Kind != "PersistentVolumeClaim" || pvc.Metadata.Name != claim(pod) || claim(merge.Spec.Template.Spec) != claim(pod) {
		t.Errorf("sweep-pvc.yaml declares %s %s; the shards mount %s, the merge %s", pvc.Kind, pvc.Metadata.Name, claim(pod), claim(merge.Spec.Template.Spec))
	}
	if !slices.Contains(pvc.Spec.AccessModes, "ReadWriteMany") {
		t.Errorf("sweep-pvc.yaml: access modes %v: pods on several nodes write it at once, want ReadWriteMany", pvc.Spec.AccessModes)
	}
}

// checkPod: one container running the image's entrypoint, as the image's
// non-root user, restartPolicy Never (required by backoffLimitPerIndex and
// podFailurePolicy), CPU and memory requested and limited, GOMEMLIMIT
// below the memory limit, no privilege escalation, one volume from a
// persistent volume claim.
func checkPod(t *testing.T, name string, pod k8sPodSpec, docker dockerfile) {
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
	for _, r := range []string{"cpu", "memory"} {
		req, lim := c.Resources.Requests[r], c.Resources.Limits[r]
		if req == "" || lim == "" {
			t.Errorf("%s: resources of %s: request %q, limit %q; want both", name, r, req, lim)
		} else if quantity(t, lim) < quantity(t, req) {
			t.Errorf("%s: %s limit %s below its request %s", name, r, lim, req)
		}
	}
	for _, e := range c.Env {
		if e.Name == "GOMEMLIMIT" {
			if lim := c.Resources.Limits["memory"]; lim != "" && goMemLimit(t, e.Value) >= quantity(t, lim) {
				t.Errorf("%s: GOMEMLIMIT %s is not below the memory limit %s", name, e.Value, lim)
			}
		}
	}
	if len(pod.Volumes) != 1 || pod.Volumes[0].PersistentVolumeClaim == nil {
		t.Fatalf("%s: volumes %+v, want one persistent volume claim", name, pod.Volumes)
	}
}

// mountOf is where the pod's container mounts its volume.
func mountOf(t *testing.T, name string, pod k8sPodSpec) string {
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

func intOrUnset(p *int) string {
	if p == nil {
		return "unset"
	}
	return strconv.Itoa(*p)
}
