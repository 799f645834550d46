/**
 * Where a visit came from (decision 0041): something the agency named, or a kind of place, never
 * free text. A campaign counts by name only when each of its utm values is in the common
 * vocabulary below or in the operator's list (CAMPAIGNS and `leads -- campaigns`); its utm_content
 * and utm_term are kept by the same rule, and dropped otherwise (decision 0052). A referring site only as its class (a
 * search engine, a social network, an AI assistant), as its host where the operator lists it
 * (REFERRER_SITES), or as "a link on another site". Anything else is "other". So nothing a
 * visitor or a link's author typed is kept, and the number of sources is bounded by the settings.
 * Click identifiers (gclid, fbclid, msclkid) are never kept: that a landing had Google's or
 * Microsoft's ad click id makes an untagged visit `google/cpc` or `bing/cpc`, as analytics tools
 * count it; the id itself is never read. Without JavaScript the referring site is not known, and a
 * visit without utm values is "unknown", not "direct".
 */

export type Source =
  | { kind: "campaign"; source: string; medium?: string; campaign?: string; content?: string; term?: string }
  | { kind: "search" | "social" | "assistant"; name: string }
  | { kind: "site"; host: string }
  | { kind: "link" }
  | { kind: "direct" }
  | { kind: "unknown" }
  | { kind: "other" };
/** Every kind, in the order the settings' errors list them (ZOHO_LEAD_SOURCE_MAP may name one: server/config.ts). */
export const SOURCE_KINDS = ["campaign", "search", "social", "assistant", "site", "link", "direct", "unknown", "other"] as const satisfies Source["kind"][];

/** What the operator names (server/source-lists.ts): campaign (and source, medium, content or term) names, and referring hosts. */
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
const LISTABLE = /^[a-z0-9][a-z0-9.-]{0,39}$/;
const RESERVED = new Set<string>(SOURCE_KINDS.filter((kind) => kind !== "campaign"));
const HOST = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/**
 * Why the operator's campaign name or referring host would not be kept (undefined: it is), for CAMPAIGNS, REFERRER_SITES
 * and `leads -- campaigns|sites add` alike: what the source rule would not keep, and what may name a person.
 */
export function refusal(list: "campaigns" | "sites", typed: string): string | undefined {
  const value = typed.normalize("NFKC").trim();
  if (value.includes("@")) return "it has an @ (an email address names a person)";
  if (/\d{7}/.test(value)) return "it has seven or more digits in a row (a phone number names a person)";
  if (/\s/.test(value)) return "it has a space";
  if (value.length > 40) return "it is longer than 40 characters";
  if (list === "sites") return HOST.test(bareHost(value)) ? undefined : "it is not a host name (such as example.co.za)";
  const name = normalName(value);
  if (RESERVED.has(name)) return `it is a word a source's key is made of (${[...RESERVED].join(", ")})`;
  return LISTABLE.test(name) ? undefined : "it may have only a-z, 0-9, . and -, and starts with a letter or digit";
}

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
 * The source of a landing's utm values (source, medium, campaign, content, term), referring host (NOT_KNOWN without a script) and ad
 * click id's name (AD_CLICKS). `ownHosts`: this site's (a referrer there is no source).
 */
export function classify(utm: readonly string[], referrerHost: string, ownHosts: readonly string[], settings: SourceSettings, adClick = ""): Source {
  if (utm.slice(0, 3).some((value) => value.trim() !== "")) {
    const [source = "", medium = "", campaign = "", content = "", term = ""] = utm.map(normalName);
    const named = (value: string) => value === "" || KNOWN_NAMES.has(value) || settings.names.has(value);
    if (source === "" || ![source, medium, campaign].every(named)) return { kind: "other" };
    // An unnamed content or term is dropped: the campaign still counts as itself.
    const kept = (value: string) => value !== "" && named(value);
    return {
      kind: "campaign",
      source,
      ...(medium && { medium }),
      ...(campaign && { campaign }),
      ...(kept(content) && { content }),
      ...(kept(term) && { term }),
    };
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

const CAMPAIGN_PARTS = ["source", "medium", "campaign", "content", "term"] as const;

/**
 * A source as the funnel counts it: "newsletter/email/spring" or "linkedin/social/spring/post-a"
 * (a campaign's named parts, source, medium, campaign, content and term, the missing ones empty), "search:google", "site:example.co.za", "link", "direct" or "other".
 */
export function sourceKey(source: Source): string {
  switch (source.kind) {
    case "campaign":
      return CAMPAIGN_PARTS.map((part) => source[part] ?? "")
        .join("/")
        .replace(/\/+$/, "");
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
  const parts = key.split("/");
  if (!parts[0] || parts.length > CAMPAIGN_PARTS.length) return undefined;
  return Object.fromEntries([["kind", "campaign"], ...CAMPAIGN_PARTS.map((part, i) => [part, parts[i]]).filter(([, value]) => value)]) as Source;
}

const KIND_WORDS = { search: "a search on", social: "a post or profile on", assistant: "an AI assistant," } as const;

/** The source in words, as the agency's message says it ("Came from: newsletter, email, spring"). */
export function sourceWords(source: Source): string {
  switch (source.kind) {
    case "campaign":
      return `Came from: ${[source.source, source.medium, source.campaign, source.content && `content ${source.content}`, source.term && `term ${source.term}`].filter(Boolean).join(", ")}`;
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
    utm_content: source.kind === "campaign" ? (source.content ?? "") : "",
    utm_term: source.kind === "campaign" ? (source.term ?? "") : "",
    referrer: source.kind === "site" ? source.host : "name" in source ? source.name : "",
    text: sourceWords(source).replace(/^Came from: /, ""),
  };
}
