// The Kubernetes manifests under deploy/kubernetes, checked with no cluster: each object against the
// Kubernetes API's schema (kubernetes-models, which validates with Ajv), then what ties them together —
// the probes on /healthz and /readyz, the Service and the HPA aimed at the Deployment, every secret the
// Deployment reads defined in the Secret, the pod run as a non-root user — and the ConfigMap's config
// loaded by Switchyard's own loader with the Secret's values in the environment.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Secret } from "kubernetes-models/v1/Secret";
import { Service } from "kubernetes-models/v1/Service";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { loadConfigFile } from "../../src/config/load.js";
import { ROOT } from "../helpers.js";

const DIR = join(ROOT, "deploy/kubernetes");
// biome-ignore lint/suspicious/noExplicitAny: each model takes its own kind's shape; the YAML is checked by validate()
const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  "apps/v1 Deployment": Deployment,
  "autoscaling/v2 HorizontalPodAutoscaler": HorizontalPodAutoscaler,
  "policy/v1 PodDisruptionBudget": PodDisruptionBudget,
  "v1 ConfigMap": ConfigMap,
  "v1 Secret": Secret,
  "v1 Service": Service,
};

// biome-ignore lint/suspicious/noExplicitAny: manifests are free-form YAML, checked field by field below
type Manifest = Record<string, any>;

/** Every object of every manifest file, with the file it is in. */
function manifests(): Array<{ file: string; object: Manifest }> {
  return readdirSync(DIR)
    .filter((file) => file.endsWith(".yaml") && file !== "kustomization.yaml")
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(DIR, file), "utf8")).map((document) => {
        expect(document.errors, file).toEqual([]);
        return { file, object: document.toJS() as Manifest };
      }),
    );
}

const objects = manifests();
const one = (kind: string): Manifest => {
  const found = objects.filter(({ object }) => object.kind === kind);
  expect(found, kind).toHaveLength(1);
  return found[0]!.object;
};

describe("deploy/kubernetes", () => {
  it("each object is valid against the Kubernetes API's schema for its kind", () => {
    for (const { file, object } of objects) {
      const Model = MODELS[`${object.apiVersion} ${object.kind}`];
      expect(Model, `${file}: ${object.apiVersion} ${object.kind} has no model here`).toBeDefined();
      expect(() => new Model!(object).validate(), file).not.toThrow();
    }
  });

  it("a broken object is caught (the validator is not a no-op)", () => {
    const broken = structuredClone(one("Deployment"));
    broken.spec.replicas = "three";
    expect(() => new Deployment(broken).validate()).toThrow(/replicas/);
  });

  it("kustomization.yaml lists every manifest file", () => {
    const kustomization = parseAllDocuments(readFileSync(join(DIR, "kustomization.yaml"), "utf8"))[0]!.toJS();
    expect(new Set(kustomization.resources)).toEqual(new Set(objects.map(({ file }) => file)));
  });

  it("the Deployment probes /healthz (startup, liveness) and /readyz (readiness) on the port it serves", () => {
    const pod = one("Deployment").spec.template.spec;
    const [container] = pod.containers;
    expect(container.args).toEqual(expect.arrayContaining(["serve", "--http", "8080", "--host", "0.0.0.0"]));
    const http = container.ports.find((port: Manifest) => port.name === "http");
    expect(http.containerPort).toBe(8080);
    expect(container.startupProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(container.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(container.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "http" });
  });

  it("the pod runs as a non-root user, read-only, with no privilege to gain", () => {
    const pod = one("Deployment").spec.template.spec;
    const [container] = pod.containers;
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(pod.securityContext.runAsUser).not.toBe(0);
    expect(container.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
    });
    expect(container.resources.requests.cpu).toBeDefined(); // the HPA's utilization is of the request
  });

  it("the Service, the HPA and the PodDisruptionBudget aim at the Deployment's pods", () => {
    const deployment = one("Deployment");
    const labels = deployment.spec.template.metadata.labels;
    expect(deployment.spec.selector.matchLabels).toEqual(labels);
    const service = one("Service");
    expect(labels).toMatchObject(service.spec.selector);
    expect(service.spec.ports[0].targetPort).toBe("http");
    expect(service.spec.sessionAffinity).toBe("None"); // sealed sessions need no stickiness
    expect(labels).toMatchObject(one("PodDisruptionBudget").spec.selector.matchLabels);
    const hpa = one("HorizontalPodAutoscaler");
    expect(hpa.spec.scaleTargetRef).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: deployment.metadata.name,
    });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
  });

  it("every secret the Deployment reads is in the Secret, and the ConfigMap it mounts exists", () => {
    const pod = one("Deployment").spec.template.spec;
    const secret = one("Secret");
    for (const variable of pod.containers[0].env.filter((entry: Manifest) => entry.valueFrom?.secretKeyRef)) {
      const ref = variable.valueFrom.secretKeyRef;
      expect(ref.name, variable.name).toBe(secret.metadata.name);
      expect(Object.keys(secret.stringData), variable.name).toContain(ref.key);
    }
    const volume = pod.volumes.find((entry: Manifest) => entry.configMap);
    expect(volume.configMap.name).toBe(one("ConfigMap").metadata.name);
  });

  it("the ConfigMap's config loads with the Secret's values, and refuses the Secret's placeholders", () => {
    const dir = mkdtempSync(join(tmpdir(), "switchyard-deploy-"));
    try {
      const file = join(dir, "switchyard.config.json");
      writeFileSync(file, one("ConfigMap").data["switchyard.config.json"]);
      const secret = one("Secret").stringData;
      const env = (values: Record<string, string>) => ({
        SWITCHYARD_SESSION_KEY: values["session-key"],
        GATEWAY_TOKEN: values["gateway-token"],
        SWITCHYARD_STORE_URL: values["store-url"],
      });
      // As applied unchanged, switchyard does not start: neither placeholder is a token or a key.
      expect(() => loadConfigFile(file, env(secret))).toThrow(/token of at least 16 characters/);
      expect(() => loadConfigFile(file, env({ ...secret, "gateway-token": "t".repeat(64) }))).toThrow(
        /session key of at least 32 characters/,
      );
      const config = loadConfigFile(
        file,
        env({
          "session-key": "k".repeat(44),
          "gateway-token": "t".repeat(64),
          "store-url": "",
        }),
      );
      expect(config.gateway?.sessionKey).toBe("k".repeat(44));
      expect(config.gateway?.auth?.tokens?.[0]?.token).toBe("t".repeat(64));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
