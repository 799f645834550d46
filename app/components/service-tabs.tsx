import { Link, useLocation, useNavigate } from "@remix-run/react";
import { type ReactNode, useRef, type KeyboardEvent } from "react";
import { services } from "~/content/services";
import type { Service } from "~/content/types";
import { useHydrated } from "~/utils/use-hydrated";

/**
 * The home page's services, as WAI-ARIA tabs. Each tab is a link to `?service=<key>`, so the server
 * renders the selection without JavaScript; with it, clicks and arrow keys switch tabs in place.
 * `action` adds a control for the selected service (the home page's "Estimate This").
 */
export function ServiceTabs({ action }: { action?: (service: Service) => ReactNode }) {
  // The query read from the location and a tab's written with navigate, as useSearchParams does:
  // the site's only use of that hook's setter, which put 130 B into the framework's script.
  const { search } = useLocation();
  const navigate = useNavigate();
  const hydrated = useHydrated();
  const tabs = useRef<(HTMLAnchorElement | null)[]>([]);
  const selectedIndex = Math.max(
    0,
    services.findIndex((s) => s.key === new URLSearchParams(search).get("service")),
  );
  const selected = services[selectedIndex] ?? services[0];

  function select(index: number) {
    const service = services[index];
    if (!service) return;
    const params = new URLSearchParams(search);
    params.set("service", service.key);
    params.delete("sent");
    navigate(`?${params}`, { replace: true, preventScrollReset: true });
    tabs.current[index]?.focus();
  }

  function onKeyDown(event: KeyboardEvent<HTMLAnchorElement>) {
    // Start from the tab that has focus: the URL (and so `selectedIndex`) may lag a quick key.
    const from = Math.max(0, tabs.current.indexOf(event.currentTarget));
    const last = services.length - 1;
    const moves: Record<string, number> = {
      ArrowRight: from === last ? 0 : from + 1,
      ArrowLeft: from === 0 ? last : from - 1,
      Home: 0,
      End: last,
    };
    const target = moves[event.key];
    if (target === undefined) return;
    event.preventDefault();
    select(target);
  }

  return (
    <>
      <div className="tablist" role="tablist" aria-label="Our services">
        {/* A space before each tab: a text browser (lynx, w3m) runs adjacent links together. */}
        {services.map((service, index) => {
          const isSelected = service.key === selected.key;
          return [
            " ",
            <Link
              key={service.key}
              ref={(el) => {
                tabs.current[index] = el;
              }}
              className="tab"
              role="tab"
              id={`tab-${service.key}`}
              aria-selected={isSelected}
              aria-controls="service-panel"
              tabIndex={hydrated && !isSelected ? -1 : undefined}
              to={`/?service=${service.key}#services`}
              preventScrollReset
              replace
              onClick={(event) => {
                event.preventDefault();
                select(index);
              }}
              onKeyDown={onKeyDown}
            >
              {service.name}
            </Link>,
          ];
        })}
      </div>
      <div className="tabpanel card" role="tabpanel" id="service-panel" aria-labelledby={`tab-${selected.key}`}>
        <div>
          <img className="service-icon" src={selected.icon} alt="" width={48} height={48} />
          <h3>{selected.title}</h3>
          <p>{selected.description}</p>
          {/* The whole name is the link's text (not an aria-label), so it reads well out of context. */}
          <Link className="btn btn--ghost" to={`/services#${selected.slug}`}>
            Learn More<span className="visually-hidden"> about {selected.name}</span>
          </Link>
          {action?.(selected)}
        </div>
        <ul className="checklist checklist--2">
          {selected.details.map((detail) => (
            <li key={detail}>{detail}</li>
          ))}
        </ul>
      </div>
    </>
  );
}
