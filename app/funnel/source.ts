/**
 * Where a visit came from (decision 0041): something the agency named, or a kind of place, never
 * free text. A campaign counts by name only when each of its utm values is in the common
 * vocabulary below or in the operator's list (CAMPAIGNS); a referring site only as its class (a
 * search engine, a social network, an AI assistant), as its host where the operator lists it
 * (REFERRER_SITES), or as "a link on another site". Anything else is "other". So nothing a
 * visitor or a link's author typed is kept, and the number of sources is bounded by the settings.
 * Click identifiers (gclid, fbclid, msclkid) are never kept: that a landing had Google's or
 * Microsoft's ad click id makes an untagged visit `google/cpc` or `bing/cpc`, as analytics tools
 * count it; the id itself is never read. Without JavaScript the referring site is not known, and a
 * visit without utm values is "unknown", not "direct".
 */

export type Source =
  | { kind: "campaign"; source: string; medium?: string; campaign?: string }
  | { kind: "search" | "social" | "assistant"; name: string }
  | { kind: "site"; host: string }
  | { kind: "link" }
  | { kind: "direct" }
  | { kind: "unknown" }
  | { kind: "other" };
/** Every kind, in the order the settings' errors list them (ZOHO_LEAD_SOURCE_MAP may name one: server/config.ts). */
export const SOURCE_KINDS = ["campaign", "search", "social", "assistant", "site", "link", "direct", "unknown", "other"] as const satisfies Source["kind"][];

/** What the operator names (server/config.ts): campaign (and source or medium) names, and referring hosts. */
export interface SourceSettings {
  names: ReadonlySet<string>;
  sites: readonly string[];
  /** The hosts of the site's own origins (SITE_ORIGIN), beside the one a request names: a referrer there is no source. */
  ownHosts?: readonly string[];
}

/** The common utm_source and utm_medium values (the vocabulary of Google's and Matomo's channel rules), known without listing. */
const KNOWN_NAMES = new Set(
  (
    "google bing yahoo duckduckgo ecosia baidu yandex brave facebook instagram linkedin twitter x tiktok youtube pinterest reddit " +
    "whatsapp telegram threads snapchat chatgpt perplexity gemini copilot newsletter email mailchimp brevo hubspot klaviyo zoho " +
    "zohocampaigns sms qr print flyer partner referral affiliate cpc ppc cpm paid paidsearch paid-search paid-social paidsocial " +
    "display banner retargeting social social-media organic video podcast audio push event webinar offline"
  ).split(" "),
);

/** Hosts (and their subdomains) of each class, by the name they count as. */
const PLACES: [Exclude<Source["kind"], "campaign" | "site" | "link" | "direct" | "unknown" | "other">, string, RegExp][] = [
  ["search", "google", /(^|\.)google(\.[a-z]{2,3}){1,2}$/],
  ["search", "bing", /(^|\.)bing\.com$/],
  ["search", "yahoo", /(^|\.)yahoo\.com$/],
  ["search", "duckduckgo", /(^|\.)duckduckgo\.com$/],
  ["search", "ecosia", /(^|\.)ecosia\.org$/],
  ["search", "brave", /^search\.brave\.com$/],
  ["search", "baidu", /(^|\.)baidu\.com$/],
  ["search", "yandex", /(^|\.)yandex\.[a-z]{2,3}$/],
  ["social", "linkedin", /(^|\.)(linkedin\.com|lnkd\.in)$/],
  ["social", "facebook", /(^|\.)(facebook\.com|fb\.me)$/],
  ["social", "instagram", /(^|\.)instagram\.com$/],
  ["social", "x", /(^|\.)(x\.com|twitter\.com|t\.co)$/],
  ["social", "youtube", /(^|\.)(youtube\.com|youtu\.be)$/],
  ["social", "tiktok", /(^|\.)tiktok\.com$/],
  ["social", "pinterest", /(^|\.)pinterest(\.[a-z]{2,3}){1,2}$/],
  ["social", "reddit", /(^|\.)reddit\.com$/],
  ["social", "whatsapp", /(^|\.)(whatsapp\.com|wa\.me)$/],
  ["social", "threads", /(^|\.)threads\.(net|com)$/],
  ["assistant", "chatgpt", /(^|\.)(chatgpt\.com|openai\.com)$/],
  ["assistant", "perplexity", /(^|\.)perplexity\.ai$/],
  ["assistant", "gemini", /^gemini\.google\.com$/],
  ["assistant", "copilot", /^copilot\.microsoft\.com$/],
  ["assistant", "claude", /(^|\.)claude\.ai$/],
];

/** A name as listed or posted: NFKC (a full-width letter is the letter), lower case, spaces and underscores as hyphens. */
export const normalName = (value: string) =>
  value
    .normalize("NFKC")
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, "-");

/** A name the operator may list: short and plain, and none of the words a source's key is made of (a kind's name but campaign's). */
export const LISTABLE = /^[a-z0-9][a-z0-9.-]{0,39}$/;
export const RESERVED = new Set<string>(SOURCE_KINDS.filter((kind) => kind !== "campaign"));

/** A landing's referrer when no script could read it (a post without JavaScript): not known, rather than none. */
export const NOT_KNOWN = "?";
/** Ad click ids whose presence (never their value) tells an untagged visit's campaign: auto-tagged Google Ads and Microsoft Advertising. */
export const AD_CLICKS: Record<string, Source> = {
  gclid: { kind: "campaign", source: "google", medium: "cpc" },
  msclkid: { kind: "campaign", source: "bing", medium: "cpc" },
};

/** A host as a referrer gives it: lower case, without "www." or a port. */
export const bareHost = (host: string) =>
  host
    .normalize("NFKC")
    .trim()
    .toLowerCase()
    .replace(/:\d+$/, "")
    .replace(/^www\./, "");

/**
 * The source of a landing's three utm values, referring host (NOT_KNOWN without a script) and ad
 * click id's name (AD_CLICKS). `ownHosts`: this site's (a referrer there is no source).
 */
export function classify(utm: readonly string[], referrerHost: string, ownHosts: readonly string[], settings: SourceSettings, adClick = ""): Source {
  if (utm.some((value) => value.trim() !== "")) {
    const [source = "", medium = "", campaign = ""] = utm.map(normalName);
    const named = (value: string) => value === "" || KNOWN_NAMES.has(value) || settings.names.has(value);
    if (source === "" || ![source, medium, campaign].every(named)) return { kind: "other" };
    return { kind: "campaign", source, ...(medium && { medium }), ...(campaign && { campaign }) };
  }
  if (Object.hasOwn(AD_CLICKS, adClick)) return AD_CLICKS[adClick]!;
  if (referrerHost === NOT_KNOWN) return { kind: "unknown" };
  const host = bareHost(referrerHost);
  if (host === "" || ownHosts.some((own) => host === bareHost(own))) return { kind: "direct" };
  const listed = settings.sites.find((site) => host === site || host.endsWith(`.${site}`));
  if (listed) return { kind: "site", host: listed };
  const place = PLACES.find(([, , hosts]) => hosts.test(host));
  return place ? { kind: place[0], name: place[1] } : { kind: "link" };
}

/**
 * A source as the funnel counts it: "newsletter/email/spring" (a campaign's named parts, the
 * missing ones empty), "search:google", "site:example.co.za", "link", "direct" or "other".
 */
export function sourceKey(source: Source): string {
  switch (source.kind) {
    case "campaign":
      return [source.source, source.medium ?? "", source.campaign ?? ""].join("/").replace(/\/+$/, "");
    case "site":
      return `site:${source.host}`;
    case "search":
    case "social":
    case "assistant":
      return `${source.kind}:${source.name}`;
    default:
      return source.kind;
  }
}

/** A key back as its source (reports), or undefined for one that is not a key. */
export function sourceOfKey(key: string): Source | undefined {
  if (key === "direct" || key === "unknown" || key === "other" || key === "link") return { kind: key };
  const [kind, name] = key.split(":");
  if (name !== undefined) {
    if (kind === "site") return { kind, host: name };
    if (kind === "search" || kind === "social" || kind === "assistant") return { kind, name };
    return undefined;
  }
  const [source = "", medium = "", campaign = ""] = key.split("/");
  if (!source || key.split("/").length > 3) return undefined;
  return { kind: "campaign", source, ...(medium && { medium }), ...(campaign && { campaign }) };
}

const KIND_WORDS = { search: "a search on", social: "a post or profile on", assistant: "an AI assistant," } as const;

/** The source in words, as the agency's message says it ("Came from: newsletter, email, spring"). */
export function sourceWords(source: Source): string {
  switch (source.kind) {
    case "campaign":
      return `Came from: ${[source.source, source.medium, source.campaign].filter(Boolean).join(", ")}`;
    case "search":
    case "social":
    case "assistant":
      return `Came from: ${KIND_WORDS[source.kind]} ${source.name}`;
    case "site":
      return `Came from: a link on ${source.host}`;
    case "link":
      return "Came from: a link on another site";
    case "direct":
      return "Came directly";
    case "unknown":
      return "Came from: not known (no JavaScript, so only a campaign link's tags are seen)";
    case "other":
      return "Came from: a campaign or link the site does not name";
  }
}

/**
 * The source as flat parts, for a CRM's fields and a webhook's JSON: the utm values of a
 * campaign, the referring class or host otherwise, and the words.
 */
export function sourceParts(source: Source) {
  return {
    kind: source.kind,
    utm_source: source.kind === "campaign" ? source.source : "",
    utm_medium: source.kind === "campaign" ? (source.medium ?? "") : "",
    utm_campaign: source.kind === "campaign" ? (source.campaign ?? "") : "",
    referrer: source.kind === "site" ? source.host : "name" in source ? source.name : "",
    text: sourceWords(source).replace(/^Came from: /, ""),
  };
}
