// Placeholder until the fake form service lands (issue 3): nothing to start yet.
export default async function globalSetup() {}
