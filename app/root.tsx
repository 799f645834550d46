import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Links, LiveReload, Meta, Outlet, Scripts, ScrollRestoration, isRouteErrorResponse, useRouteError } from "@remix-run/react";
import { type ReactNode, useEffect } from "react";
import { SiteFooter } from "~/components/site-footer";
import { SiteHeader } from "~/components/site-header";
import { NotFound, RequestRefused, ServerError } from "~/components/error-pages";
import { FocusOnNavigate } from "~/components/focus-on-navigate";
import { pageHeaders } from "~/utils/cache-headers";
import stylesheet from "~/styles/app.css";
import { pageTitle } from "~/utils/seo";

export const headers = pageHeaders;

/** What every page's scripts need of the server's settings: the rand rate (USD_ZAR_RATE) with its words, the same for every visitor, or null. */
export const loader = ({ context }: LoaderFunctionArgs) => context.zar ?? null;
/** Never asked again: the rate is the process's, and a step or tab in the browser costs no request (decision 0025). */
export const shouldRevalidate = () => false;

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: stylesheet },
  { rel: "icon", href: "/favicon.ico", sizes: "32x32" },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
  { rel: "apple-touch-icon", href: "/apple-touch-icon.png" },
];

/** Only reached when an error boundary renders: pages set their own tags with seo(). */
export const meta: MetaFunction = ({ error }) => {
  if (!error) return [];
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  const title = notFound ? "Page not found" : isRouteErrorResponse(error) && error.status < 500 ? "Request not accepted" : "Something went wrong";
  return [{ title: pageTitle(title) }, { name: "robots", content: "noindex" }];
};

export function Layout({ children }: { children: ReactNode }) {
  return (
    <html lang="en-ZA">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#1e1b4b" />
        <Meta />
        <Links />
      </head>
      <body>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <SiteHeader />
        <main id="main" tabIndex={-1}>
          {children}
        </main>
        <SiteFooter />
        <FocusOnNavigate />
        {/* Their inline scripts are allowed by hash: entry.server lists each in the page's CSP. */}
        <ScrollRestoration />
        <Scripts />
        {/* Development only (renders nothing in production): reloads the page after a rebuild. */}
        <LiveReload />
      </body>
    </html>
  );
}

export default function App() {
  // The page a visit lands on says where it came from (the calculator's funnel counts by source):
  // its query (the server reads its utm_* values and whether it had an ad click id, nothing else)
  // and the referring host, kept in the tab under LANDING_KEY (app/funnel/visit.ts;
  // written out here, since an import would cost the page a script of its own), and posted with
  // each step and send (countSteps in app/funnel/visit.ts).
  useEffect(() => {
    try {
      if (!sessionStorage.getItem("visit-landing"))
        sessionStorage.setItem("visit-landing", `${location.search} ${document.referrer && new URL(document.referrer).host}`);
    } catch {
      // storage refused: the visit counts as direct
    }
  }, []);
  return <Outlet />;
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFound />;
  if (isRouteErrorResponse(error) && error.status < 500) {
    return <RequestRefused status={error.status} message={typeof error.data === "string" ? error.data : "Please go back and try again."} />;
  }
  // Never show a stack trace to a visitor; the server has already logged it.
  return <ServerError />;
}
