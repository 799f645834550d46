import type { SerializeFrom } from "@remix-run/node";
import { Form, useLocation, useNavigation, useSubmit } from "@remix-run/react";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { flushSync } from "react-dom";
import { CONTACT_SERVICES } from "~/content/services";
import { messages } from "~/content/messages";
import type { ContactDraft } from "~/forms/draft.server";
import { type FailedSend, useSendAgainOnline } from "~/forms/failed-send";
import { ErrorSummary, Field, focusFirstInvalid, FormNotices, Honeypot, PrivacyNote, Reference } from "~/forms/field";
import type { LazyChecks } from "~/forms/lazy-checks";
import type { roomLeft } from "~/forms/room";
import type { FieldErrors } from "~/forms/limits";
import { keep, kept } from "~/forms/tab-storage";
import { useHydrated } from "~/utils/use-hydrated";
import type { contactAction } from "./action.server";
import type { contactSchema, fieldErrors } from "./schema";
import { landing, VISIT_FIELDS } from "~/funnel/visit";

type Answer = SerializeFrom<typeof contactAction>;

const POST = { method: "post", action: "/?index#contact", preventScrollReset: true } as const;
/** What is typed, kept in the tab until it is sent, as the calculator's answers are (decision 0025). */
const TYPED = "contact-form";

/**
 * The home page's contact form: checked in the browser when it can be, always on the server. The
 * server's errors come as a page of their own (`draft`, from the page's loader), a send it could
 * not take, or one that failed in the browser, as `result`. With JavaScript what is typed stays in
 * the tab (app/forms/tab-storage.ts) across a reload, Back and a failed send, until it is sent.
 */
export function ContactForm({
  result,
  draft,
  sent,
  checks,
}: {
  result: Answer | FailedSend<"contact"> | undefined;
  draft: SerializeFrom<ContactDraft>;
  /** After a send: the message's reference, from the receipt the server kept for this browser. */
  sent: { reference?: string } | null;
  /** The rules, loaded when the visitor first reaches for the form (app/forms/README.md). */
  checks: LazyChecks<{ contactSchema: typeof contactSchema; fieldErrors: typeof fieldErrors; roomLeft: typeof roomLeft }>;
}) {
  const location = useLocation();
  // The server's latest answer: a send not taken, or the page of a navigation (its mistakes, the thanks).
  const answer = result ?? (draft || sent ? location.key : undefined);
  // What the browser's own checks found, until the next answer.
  const [checked, setChecked] = useState<[answer: unknown, errors: FieldErrors]>();
  const browserErrors = checked && checked[0] === answer ? checked[1] : null;
  const errors = browserErrors ?? draft?.errors ?? null;
  const status = browserErrors ? null : (result?.problem ?? (sent ? ("sent" as const) : null));
  const formRef = useRef<HTMLFormElement>(null);
  const landingRef = useRef<HTMLInputElement>(null);
  const navigation = useNavigation();
  const submit = useSubmit();
  const sending = navigation.formData?.get("formName") === "contact";
  const hydrated = useHydrated();

  // A new answer by navigation: the server found mistakes (its checks are the ones that count), so
  // focus the first; or the message was sent and the form starts over, so focus its thanks, which
  // a screen reader then reads, and the next Tab goes to the empty form.
  const shown = useRef(answer);
  useEffect(() => {
    if (answer === shown.current) return;
    shown.current = answer;
    if (status === "sent") {
      keep(TYPED, null); // sent: what was typed is the agency's now, not a form to fill again
      formRef.current?.querySelector<HTMLElement>('[role="status"]')?.focus();
    } else focusFirstInvalid(formRef.current);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only a new answer moves focus
  }, [answer]);

  useSendAgainOnline(result, formRef);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    // The visit's landing goes with the message, for its source (decisions 0036, 0042), in a field
    // of the form itself: checks already loaded let the form post itself (lazy-checks.ts), and that
    // post is of the form's fields. Left out when the tab has none, so the server falls back to
    // the page's own utm values as without JavaScript.
    const landingField = landingRef.current;
    if (landingField) {
      landingField.value = landing();
      landingField.disabled = landingField.value === "";
    }
    const formData = new FormData(event.currentTarget);
    checks.submit(
      event,
      ({ contactSchema, fieldErrors }) => {
        const parsed = contactSchema.safeParse(Object.fromEntries(formData));
        if (parsed.success) return true;
        flushSync(() => setChecked([answer, fieldErrors(parsed.error)]));
        focusFirstInvalid(formRef.current);
        return false;
      },
      () => submit(formData, POST),
    );
  }

  // The server's copy first; else what this tab kept, once hydrated (the server's page has none).
  const values: Partial<Record<string, string>> =
    (result as Partial<Answer> | undefined)?.values ?? draft?.values ?? (hydrated && !sent ? (kept(TYPED) as Record<string, string>) : {});
  const id = (result as Partial<Answer> | undefined)?.draft ?? draft?.id;
  return (
    // A new answer gives a new form: after a send its fields start empty again.
    <Form
      key={String(answer)}
      method="post"
      action={POST.action}
      ref={formRef}
      onSubmit={onSubmit}
      onChange={(event) => keep(TYPED, Object.fromEntries(new FormData(event.currentTarget)))}
      {...checks.onIntent}
      noValidate
      preventScrollReset
      className="card contact-form"
      aria-labelledby="contact-title"
    >
      <input type="hidden" name="formName" value="contact" />
      {/* Only once hydrated: without JavaScript the server takes the landing from the post's Referer. */}
      {hydrated ? <input type="hidden" name={VISIT_FIELDS.landing} ref={landingRef} disabled /> : null}
      {id ? <input type="hidden" name="draft" value={id} /> : null}
      <FormNotices status={status} sent={messages.contactSent} failed={messages.contactFailed} />
      {/* The agency's phone and email stand beside the form already (the section's introduction). */}
      {status === "sent" ? <Reference reference={sent?.reference} /> : null}
      <ErrorSummary form="contact" errors={errors} />
      <div className="grid grid--2">
        <Field
          form="contact"
          name="name"
          label="Name"
          errors={errors}
          render={(p) => <input {...p} defaultValue={values.name} autoComplete="name" required />}
        />
        <Field
          form="contact"
          name="email"
          label="Email"
          errors={errors}
          render={(p) => <input {...p} type="email" defaultValue={values.email} autoComplete="email" required />}
        />
      </div>
      <Field
        form="contact"
        name="service"
        label="Service"
        errors={errors}
        render={(p) => (
          // Keyed by its value: a select, unlike a text field, shows a new default only when made anew.
          <select key={values.service} {...p} defaultValue={values.service ?? ""} required>
            <option value="">Choose a service</option>
            {CONTACT_SERVICES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        )}
      />
      <Field
        form="contact"
        name="message"
        label="Message"
        errors={errors}
        count={{ bound: "At most 5,000 characters.", load: checks.load }}
        render={(p) => <textarea {...p} defaultValue={values.message} rows={5} required />}
      />
      <Honeypot />
      {/* What it shows is its value: a text browser shows a button's value beside its words (decision 0044). */}
      <input className="btn" type="submit" value={sending ? "Sending…" : "Send Message"} disabled={sending} />
      <PrivacyNote />
    </Form>
  );
}
