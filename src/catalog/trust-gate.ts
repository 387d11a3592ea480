// The trust gate: what the catalog asks before it lists a server's tools. Each tool is scanned (trust/),
// compared with its pin (the definition first seen), and its name with the other servers' names; a
// high finding quarantines it (security.onFinding: "quarantine", the default), or is only reported
// ("warn"). Pins persist through the store; a tool that disappears keeps its pin, so hiding a tool for
// one listing and bringing it back changed is still drift.
import type { OnFinding } from "../config/vocabulary.js";
import { driftOf } from "../trust/drift.js";
import type { Finding } from "../trust/finding.js";
import { lookalikes } from "../trust/lookalikes.js";
import {
  fingerprintOf,
  type PinnedDefinition,
  pinnedDefinition,
  pinOf,
  type ToolPin,
} from "../trust/pins.js";
import { scanText, scanTool } from "../trust/scan.js";

/** A tool as the catalog hands it to the gate: the server's definition and its catalog name. */
export interface ReviewedTool {
  /** The catalog name the model sees. */
  name: string;
  definition: PinnedDefinition;
}

export interface TrustGateOptions {
  onFinding: OnFinding;
  /** The pins kept from earlier runs. */
  pins?: readonly ToolPin[];
  /** Keep these pins (new, or accepted): the store's write, which the gate does not wait for. */
  savePins?: (pins: ToolPin[]) => void;
  /** Told of a server's findings each time they change: what was found, and what is quarantined now. */
  onFindings?: (server: string, findings: readonly Finding[], quarantined: readonly string[]) => void;
  now?: () => Date;
}

interface ServerReview {
  findings: Finding[];
  /** Server tool name → the high findings that quarantine it. */
  quarantined: Map<string, Finding[]>;
}

export class TrustGate {
  readonly #options: TrustGateOptions;
  /** server → tool → pin. */
  readonly #pins = new Map<string, Map<string, ToolPin>>();
  /** server → the tools it lists now (for the other servers' look-alike and shadowing checks). */
  readonly #listed = new Map<string, readonly ReviewedTool[]>();
  readonly #reviews = new Map<string, ServerReview>();
  /** server → what its `instructions` were found to hold. */
  readonly #instructions = new Map<string, Finding[]>();
  /** server → what its prompts' texts were found to hold. */
  readonly #prompts = new Map<string, Finding[]>();

  constructor(options: TrustGateOptions) {
    this.#options = options;
    for (const pin of options.pins ?? []) this.#pinsOf(pin.server).set(pin.tool, pin);
  }

  /** Whether scans run at all (`security.onFinding` is not `off`). */
  get enabled(): boolean {
    return this.#options.onFinding !== "off";
  }

  /** Know what a server lists before it is reviewed (a catalog loading every server at once). */
  know(server: string, tools: readonly ReviewedTool[]): void {
    this.#listed.set(server, tools);
  }

  /**
   * Review one server's tools as it lists them now: scans, drift against pins, names against the other
   * servers'. Returns the server tool names that are quarantined.
   */
  review(server: string, tools: readonly ReviewedTool[]): ReadonlySet<string> {
    this.#listed.set(server, tools);
    if (!this.enabled) return new Set();
    const others = this.#otherNames(server);
    const findings: Finding[] = [];
    const fresh: ToolPin[] = [];
    const pins = this.#pinsOf(server);
    const accepted = new Set<string>();
    for (const { definition } of tools) {
      const scanned = scanTool({ server, ...definition }, others);
      const pin = pins.get(definition.name);
      if (!pin) {
        fresh.push(this.#pin(server, definition));
        findings.push(...scanned);
        continue;
      }
      if (pin.fingerprint === fingerprintOf(definition)) {
        if (pin.trusted) accepted.add(definition.name);
        findings.push(...scanned);
        continue;
      }
      const drift = this.#drift(server, pin, definition, scanned);
      findings.push(...scanned, drift);
      if (drift.severity !== "high") fresh.push(this.#pin(server, definition));
    }
    findings.push(...this.#lookalikes(server));
    if (fresh.length) this.#options.savePins?.(fresh);
    return this.#settle(
      server,
      findings.map((finding) =>
        finding.tool !== undefined && accepted.has(finding.tool) ? { ...finding, accepted: true } : finding,
      ),
    );
  }

  /** A changed definition as a finding: high when it widens, flips a safety hint or brings a new high finding. */
  #drift(server: string, pin: ToolPin, now: PinnedDefinition, scanned: readonly Finding[]): Finding {
    const drift = driftOf(pin.definition, now);
    const before = new Set(
      scanTool({ server, ...pin.definition })
        .filter((finding) => finding.severity === "high")
        .map((finding) => `${finding.kind} ${finding.where ?? ""}`),
    );
    const introduced = scanned.filter(
      (finding) => finding.severity === "high" && !before.has(`${finding.kind} ${finding.where ?? ""}`),
    );
    const reasons = [
      ...drift.widened.map((what) => `widened: ${what}`),
      ...drift.flipped.map((what) => `annotation: ${what}`),
      ...introduced.map(
        (finding) => `new ${finding.kind} finding${finding.where ? ` in ${finding.where}` : ""}`,
      ),
    ];
    const since = `since it was pinned ${pin.pinnedAt}`;
    return reasons.length
      ? {
          server,
          tool: now.name,
          kind: "drift",
          severity: "high",
          detail: `changed ${since}: ${reasons.join("; ")}`,
        }
      : { server, tool: now.name, kind: "drift", severity: "low", detail: `reworded ${since}; pinned again` };
  }

  /** This server's tools whose names look like another server's (the odder, else the newer, is flagged). */
  #lookalikes(server: string): Finding[] {
    const pinnedAt = (owner: string, tool: string) => this.#pins.get(owner)?.get(tool)?.pinnedAt ?? "\uffff";
    const everyone = [...this.#listed].flatMap(([owner, listed]) =>
      listed.map((tool) => ({ server: owner, name: tool.definition.name, catalogName: tool.name })),
    );
    // Older pins first, tools not pinned yet last: of two look-alikes equally odd, the one seen later is
    // the suspect.
    everyone.sort((a, b) => pinnedAt(a.server, a.name).localeCompare(pinnedAt(b.server, b.name)));
    return lookalikes(everyone).filter((finding) => finding.server === server);
  }

  /** Record a server's findings, tell the listener when they changed, and return what is quarantined. */
  #settle(server: string, findings: Finding[]): ReadonlySet<string> {
    const quarantined = new Map<string, Finding[]>();
    if (this.#options.onFinding === "quarantine")
      for (const finding of findings)
        if (finding.severity === "high" && finding.tool !== undefined && !finding.accepted)
          quarantined.set(finding.tool, [...(quarantined.get(finding.tool) ?? []), finding]);
    const before = this.#reviews.get(server);
    this.#reviews.set(server, { findings, quarantined });
    if (!before || JSON.stringify(before.findings) !== JSON.stringify(findings))
      this.#options.onFindings?.(server, this.findings(server), [...quarantined.keys()]);
    return new Set(quarantined.keys());
  }

  /**
   * Scan a server's `instructions` (as its handshake gave them; none: nothing). Returns whether the
   * model may be given them: not with a high finding, unless `security.onFinding` only warns.
   */
  reviewInstructions(server: string, text: string | undefined): boolean {
    this.#reviewTexts(this.#instructions, server, text ? [{ where: "instructions", text }] : []);
    return !this.withholdsInstructions(server);
  }

  /**
   * Scan a server's prompts (their descriptions and arguments' descriptions): reported, never held —
   * a prompt is run only when a person picks it, and its messages reach a model stripped of hidden text.
   */
  reviewPrompts(
    server: string,
    prompts: readonly {
      name: string;
      description?: string | undefined;
      arguments?: readonly { name: string; description?: string | undefined }[] | undefined;
    }[],
  ): void {
    this.#reviewTexts(
      this.#prompts,
      server,
      prompts.flatMap((prompt) => [
        ...(prompt.description ? [{ where: `prompt:${prompt.name}`, text: prompt.description }] : []),
        ...(prompt.arguments ?? []).flatMap((argument) =>
          argument.description
            ? [{ where: `prompt:${prompt.name}.${argument.name}`, text: argument.description }]
            : [],
        ),
      ]),
    );
  }

  /** Scan a server's texts of one kind, keep what was found, and tell the listener when it changed. */
  #reviewTexts(
    kept: Map<string, Finding[]>,
    server: string,
    texts: readonly { where: string; text: string }[],
  ): void {
    const before = kept.get(server) ?? [];
    const others = this.#otherNames(server);
    const findings = this.enabled
      ? texts.flatMap(({ where, text }) => scanText(server, text, where, others))
      : [];
    kept.set(server, findings);
    if (JSON.stringify(before) !== JSON.stringify(findings))
      this.#options.onFindings?.(server, this.findings(server), [
        ...(this.#reviews.get(server)?.quarantined.keys() ?? []),
      ]);
  }

  /** Whether a server's instructions are kept from the model for a high finding (quarantine mode). */
  withholdsInstructions(server: string): boolean {
    return (
      this.#options.onFinding === "quarantine" &&
      (this.#instructions.get(server) ?? []).some((finding) => finding.severity === "high")
    );
  }

  /** The high findings that quarantine a server's tool, if it is quarantined. */
  quarantine(server: string, tool: string): readonly Finding[] | undefined {
    return this.#reviews.get(server)?.quarantined.get(tool);
  }

  /** Every current finding about the tools, instructions and prompts listed, by server. */
  findings(server?: string): Finding[] {
    const of = (name: string) => [
      ...(this.#instructions.get(name) ?? []),
      ...(this.#reviews.get(name)?.findings ?? []),
      ...(this.#prompts.get(name) ?? []),
    ];
    if (server !== undefined) return of(server);
    const servers = new Set([...this.#instructions.keys(), ...this.#reviews.keys(), ...this.#prompts.keys()]);
    return [...servers].flatMap(of);
  }

  /**
   * Accept a server's tools (or one of them) as they are listed now: pin them again. Returns the pins
   * made; the caller reviews the server again so that what was quarantined for drift is listed.
   */
  trust(server: string, tool?: string): ToolPin[] {
    const listed = this.#listed.get(server) ?? [];
    const pins = listed
      .filter((entry) => tool === undefined || entry.definition.name === tool)
      .map((entry) => this.#pin(server, entry.definition, true));
    if (pins.length) this.#options.savePins?.(pins);
    return pins;
  }

  /** What the servers but `server` list now: their tools' names, for the shadowing scan. */
  #otherNames(server: string): { tools: ReadonlyMap<string, readonly string[]> } {
    const tools = new Map<string, string[]>();
    for (const [owner, listed] of this.#listed)
      if (owner !== server)
        tools.set(
          owner,
          listed.flatMap((tool) => [tool.name, tool.definition.name]),
        );
    return { tools };
  }

  #pin(server: string, definition: PinnedDefinition, trusted = false): ToolPin {
    const pin = pinOf(server, definition, this.#options.now?.() ?? new Date(), trusted);
    this.#pinsOf(server).set(definition.name, pin);
    return pin;
  }

  #pinsOf(server: string): Map<string, ToolPin> {
    const pins = this.#pins.get(server) ?? new Map<string, ToolPin>();
    this.#pins.set(server, pins);
    return pins;
  }
}

export { pinnedDefinition };
