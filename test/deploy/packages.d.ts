// The little the deploy tests use of their two devDependencies (dockerfile-utils, kubernetes-models), so
// that the typecheck passes where they are not installed yet; once they are, their own types are used.
declare module "dockerfile-utils" {
  export function validate(
    content: string,
    settings?: Record<string, number>,
  ): Array<{ severity?: number; message: string; range: { start: { line: number } } }>;
}

// A model of one kind: `validate()` throws with every path that does not match the API's schema.
declare module "kubernetes-models/apps/v1/Deployment" {
  export class Deployment {
    constructor(data: unknown);
    validate(): void;
  }
}
declare module "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler" {
  export class HorizontalPodAutoscaler {
    constructor(data: unknown);
    validate(): void;
  }
}
declare module "kubernetes-models/policy/v1/PodDisruptionBudget" {
  export class PodDisruptionBudget {
    constructor(data: unknown);
    validate(): void;
  }
}
declare module "kubernetes-models/v1/ConfigMap" {
  export class ConfigMap {
    constructor(data: unknown);
    validate(): void;
  }
}
declare module "kubernetes-models/v1/Secret" {
  export class Secret {
    constructor(data: unknown);
    validate(): void;
  }
}
declare module "kubernetes-models/v1/Service" {
  export class Service {
    constructor(data: unknown);
    validate(): void;
  }
}
