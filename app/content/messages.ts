/** What the forms say to the visitor, word for word as docs/product.md ("What the visitor is told") has them: content.test.ts checks that they agree. */
export const messages = {
  calculatorSent: "Thank you! We will contact you shortly.",
  calculatorFailed: "There was an error submitting your request. Please try again.",
  contactSent: "Thank you! Your message has been sent. We reply within one business day.",
  contactFailed: "There was an error sending your message. Please try again.",
  rateLimited:
    "Many messages are arriving from your internet address just now (people on one office or mobile network can share it), so we could not take this one. Please try again in a few minutes.",
} as const;
