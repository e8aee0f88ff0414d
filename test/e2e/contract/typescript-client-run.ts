/**
 * A partner firm's program on the TypeScript client generated from docs/openapi.json: it prints what it
 * saw as one JSON object (test/e2e/contract/typescript-client.test.ts asserts on it). Compiled with the
 * generated client under `tsc --strict` and run with tsx, in the test's temporary directory.
 *
 *   typescript-client-run.ts flow BASE_URL EXTERNAL_ID APPLICATION_XML_FILE PDF_FILE WEBHOOK_URL
 *   typescript-client-run.ts read BASE_URL REFERENCE
 *
 * The API key (role onboarding) is ECA_API_KEY.
 */
import { readFileSync } from 'node:fs';
import { ApplicationsApi, Configuration, EventsApi, ResponseError, WebhooksApi } from 'eca-onboarding-generated-client';
import type { Application, DocumentUpload, EventPageEventsInner, Task } from 'eca-onboarding-generated-client';

function apis(base: string) {
  const configuration = new Configuration({ basePath: base, accessToken: process.env.ECA_API_KEY ?? '' });
  return {
    applications: new ApplicationsApi(configuration),
    events: new EventsApi(configuration),
    webhooks: new WebhooksApi(configuration),
  };
}

async function follow(applications: ApplicationsApi, reference: string, wanted: string[]): Promise<Application> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const application: Application = await applications.getApplication({ reference });
    if (wanted.includes(application.lifecycleState) || Date.now() > deadline) return application;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function flow(base: string, externalId: string, xmlFile: string, pdfFile: string, webhookUrl: string) {
  const { applications, events, webhooks } = apis(base);
  const xml = readFileSync(xmlFile, 'utf8');
  const pdf = readFileSync(pdfFile).toString('base64');
  const seen: Record<string, unknown> = {};

  const w9: DocumentUpload = { formNumber: '5002', fileName: 'w9.pdf', contentBase64: pdf };
  const started = await applications.startApplication({
    startApplicationRequest: { applicationXml: xml, documents: [w9] },
  });
  seen.start = { existed: started.existed, externalId: started.application.externalId };

  const asked = await follow(applications, externalId, ['needsDocuments', 'open', 'rejected']);
  seen.asked = asked.lifecycleState;
  if (asked.lifecycleState === 'needsDocuments') {
    const documents: DocumentUpload[] = (asked.pendingTasks ?? [])
      .filter((task: Task) => task.action === 'to send')
      .map((task: Task) => ({ formNumber: task.formNumber, contentBase64: pdf }));
    const provided: Application = await applications.provideDocuments({
      reference: externalId,
      provideDocumentsRequest: { documents },
    });
    seen.provided = { forms: documents.length, state: provided.lifecycleState };
  }

  const final = await follow(applications, externalId, ['open', 'rejected']);
  seen.final = { state: final.lifecycleState, accountId: final.accountId, done: final.done };

  const page = await events.listApplicationEvents({ reference: externalId, after: 'start', limit: 100 });
  seen.events = page.events.map((entry: EventPageEventsInner) => entry.event.type);

  try {
    const registered = await webhooks.registerWebhook({
      registerWebhookRequest: { url: webhookUrl, description: 'contract test (typescript)', after: 'start' },
    });
    seen.webhook = { status: 201, hasSecret: registered.secret.length > 0, url: registered.endpoint.url };
  } catch (error) {
    if (!(error instanceof ResponseError)) throw error;
    const body = (await error.response.json()) as { code?: string; detail?: string };
    seen.webhook = { status: error.response.status, code: body.code, detail: body.detail };
  }
  return seen;
}

async function read(base: string, reference: string) {
  const { applications, events } = apis(base);
  const seen: Record<string, unknown> = {};
  try {
    const application: Application = await applications.getApplication({ reference });
    seen.application = {
      state: application.lifecycleState,
      externalId: application.externalId,
      workflowId: application.workflowId,
      done: application.done,
    };
  } catch (error) {
    seen.applicationError = String(error);
  }
  try {
    const page = await events.listApplicationEvents({ reference, after: 'start', limit: 100 });
    seen.events = page.events.map((entry: EventPageEventsInner) => ({ type: entry.event.type, to: entry.event.to }));
  } catch (error) {
    seen.eventsError = String(error);
  }
  return seen;
}

const [mode, ...args] = process.argv.slice(2);
const run =
  mode === 'flow'
    ? flow(args[0] ?? '', args[1] ?? '', args[2] ?? '', args[3] ?? '', args[4] ?? '')
    : mode === 'read'
      ? read(args[0] ?? '', args[1] ?? '')
      : Promise.reject(new Error('usage: typescript-client-run.ts flow|read ...'));
run.then(
  (seen) => console.log(JSON.stringify(seen)),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
