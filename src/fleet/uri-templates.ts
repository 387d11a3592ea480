import { UriTemplate } from "@modelcontextprotocol/client";

/** Whether `uri` is one of the URIs a resource template (RFC 6570) describes. */
export function matchesUriTemplate(template: string, uri: string): boolean {
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false; // a template the SDK cannot parse describes nothing we can find
  }
}
