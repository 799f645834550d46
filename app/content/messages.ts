/** What the forms say to the visitor, word for word as docs/product.md ("What the visitor is told") has them: content.test.ts checks that they agree. */
export const messages = {
  calculatorSent: "Thank you! We will contact you shortly.",
  calculatorFailed: "There was an error submitting your request. Please try again.",
  contactSent: "Thank you! Your message has been sent. We reply within one business day.",
  contactFailed: "There was an error sending your message. Please try again.",
  rateLimited: "You have sent several messages in a short time. Please wait a few minutes and try again.",
} as const;
