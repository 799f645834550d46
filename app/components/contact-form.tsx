import { Form, useLocation, useNavigation, useSubmit } from "@remix-run/react";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { LIMITS, type FieldErrors } from "~/calculator/limits";
import { CONTACT_SERVICES } from "~/contact/services";
import type { FormProblem } from "~/context";
import { messages } from "~/content/messages";
import { Field, focusFirstInvalid, FormNotices, Honeypot } from "./field";
import { checkThenSubmit, type FormChecks, loadChecksOnIntent } from "./form-checks";

const POST = { method: "post", action: "/?index#contact", preventScrollReset: true } as const;

/** What the home action answers to a contact post that did not end in a redirect. */
export interface ContactResult {
  form: "contact";
  values: Record<string, string>;
  errors: FieldErrors | null;
  problem: FormProblem | null;
}

/** The home page's contact form: validated in the browser when it can be, always on the server. */
export function ContactForm({ result, sent }: { result: ContactResult | undefined; sent: boolean }) {
  const [errors, setErrors] = useState<FieldErrors | null>(result?.errors ?? null);
  const [status, setStatus] = useState<"sent" | FormProblem | null>(result?.problem ?? (sent ? "sent" : null));
  const formRef = useRef<HTMLFormElement>(null);
  const location = useLocation();
  const navigation = useNavigation();
  const submit = useSubmit();
  const sending = navigation.state !== "idle" && navigation.formData?.get("formName") === "contact";

  useEffect(() => {
    if (!result) return;
    setErrors(result.errors);
    setStatus(result.problem);
  }, [result]);

  useEffect(() => {
    if (!sent) return;
    formRef.current?.reset();
    setErrors(null);
    setStatus("sent");
  }, [sent, location.key]);

  /** The browser's check; true when the form is valid and should go to the server. */
  function check(checks: FormChecks, formData: FormData): boolean {
    const parsed = checks.contactSchema.safeParse(Object.fromEntries(formData));
    if (parsed.success) return true;
    setErrors(checks.fieldErrors(parsed.error));
    setStatus(null);
    return false;
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    const formData = new FormData(event.currentTarget);
    checkThenSubmit(event, (checks) => check(checks, formData), () => submit(formData, POST));
  }
  useEffect(() => focusFirstInvalid(formRef.current), [errors]);

  const values = result?.values ?? {};
  return (
    <Form method="post" action={POST.action} ref={formRef} onSubmit={onSubmit} {...loadChecksOnIntent} noValidate preventScrollReset className="card contact-form" aria-labelledby="contact-title">
      <input type="hidden" name="formName" value="contact" />
      <FormNotices status={status} sent={messages.contactSent} failed={messages.contactFailed} />
      <div className="grid grid--2">
        <Field form="contact" name="name" label="Name" errors={errors} render={(p) => <input {...p} defaultValue={values.name} maxLength={LIMITS.name} autoComplete="name" required />} />
        <Field form="contact" name="email" label="Email" errors={errors} render={(p) => <input {...p} type="email" defaultValue={values.email} maxLength={LIMITS.email} autoComplete="email" required />} />
      </div>
      <Field
        form="contact"
        name="service"
        label="Service"
        errors={errors}
        render={(p) => (
          <select {...p} defaultValue={values.service ?? ""} required>
            <option value="">Choose a service</option>
            {CONTACT_SERVICES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        )}
      />
      <Field form="contact" name="message" label="Message" errors={errors} render={(p) => <textarea {...p} defaultValue={values.message} maxLength={LIMITS.message} rows={5} required />} />
      <Honeypot />
      <button className="btn" type="submit" disabled={sending}>
        {sending ? "Sending…" : "Send message"}
      </button>
    </Form>
  );
}
