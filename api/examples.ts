/**
 * The OpenAPI document's examples: one per component a request or an answer carries, one per answer whose
 * schema has no component, and one per path parameter. api/contract.ts puts them in the document; Redocly's
 * lint (test/e2e/contract) checks each against its schema.
 */

const AT = '2026-11-02T14:05:09.120Z';
const LATER = '2026-11-02T14:07:41.906Z';
const SHA1 = '5b1c0e7f3f0c4d2a9e8b7a6c5d4e3f2a1b0c9d8e';

const webhook = {
  id: 'wh_3kq8n2m5p7r9t4vx',
  csid: 'ACME',
  url: 'https://onboarding.example.com/hooks/eca',
  description: 'Onboarding system',
  state: 'active',
  cursor: '1204-3',
  backlog: 0,
  delivered: 42,
  failures: 0,
  lastDeliveredAt: LATER,
  createdAt: AT,
};

const application = {
  workflowId: 'application-ACME-client-1042',
  externalId: 'client-1042',
  csid: 'ACME',
  lifecycleState: 'needsDocuments',
  done: false,
  application: { sha1: SHA1, length: 4817 },
  accountId: 'U1234567',
  userName: 'jdoe1042',
  credentialsAvailable: true,
  status: 'N',
  stateText: 'New',
  pendingTasks: [
    { formNumber: '5001', formName: 'W-9', action: 'to sign', state: 'To Be Signed', isRequiredForApproval: true },
  ],
  waitingDocuments: [],
  documents: [
    {
      formNumber: '5001',
      formName: 'W-9',
      action: 'to sign',
      state: 'requested',
      provided: false,
      requiredForApproval: true,
    },
  ],
  corrections: [],
  lastPollAt: LATER,
  nextPollAt: '2026-11-02T14:22:41.906Z',
  transitions: [
    { state: 'creating', event: 'validated', at: AT },
    { state: 'tracking', event: 'created', at: '2026-11-02T14:05:12.402Z' },
    { state: 'needsDocuments', event: 'tasksPending', at: LATER },
  ],
  runs: 1,
  deadline: { state: 'needsDocuments', due: '2026-11-12T14:07:41.906Z', overdue: false, escalation: 'alert' },
};

const summary = {
  workflowId: application.workflowId,
  externalId: 'client-1042',
  accountId: 'U1234567',
  lifecycleState: 'needsDocuments',
  accountStatus: 'N',
  status: 'Running',
  startTime: AT,
};

const event = {
  id: 'evt_client-1042_3',
  type: 'application.needs_documents',
  csid: 'ACME',
  externalId: 'client-1042',
  accountId: 'U1234567',
  from: 'tracking',
  to: 'needsDocuments',
  at: LATER,
  seq: 3,
  data: { tasks: ['5001'] },
};

const stateDeadline = { deadline: '10d', reminders: ['3d', '7d'], escalation: 'alert' };
const effectivePolicy = {
  needsCorrection: { deadline: '5d', reminders: ['2d'], escalation: 'none' },
  needsDocuments: stateDeadline,
  awaitingClient: { deadline: '14d', reminders: ['7d'], escalation: 'none' },
  unconfirmed: { deadline: '1d', reminders: [], escalation: 'alert' },
  blocked: { deadline: '1d', reminders: [], escalation: 'alert' },
};

const firm = {
  csid: 'ACME',
  name: 'Acme Advisors',
  settings: { environment: 'qa', firmTypes: ['advisor'], callsPerSecond: 5 },
  managedBy: 'database',
  keys: { version: 2, rotatedAt: AT, stored: true, openPgp: true },
  createdAt: '2026-10-01T09:00:00.000Z',
  updatedAt: AT,
};

const apiKey = { id: 'k7mq2xz4ab3c', csid: 'ACME', role: 'onboarding', name: 'Onboarding system', createdAt: AT };

const pdf = { formNumber: '5001', fileName: 'w9.pdf', contentBase64: 'JVBERi0xLjQK' };
const xml =
  '<?xml version="1.0" encoding="UTF-8"?><Applications><Application><Customer external_id="client-1042">…</Customer></Application></Applications>';

/** By component name: the first entry of the component's `examples`, and the example of a body or answer of it. */
export const COMPONENT_EXAMPLES: Record<string, unknown> = {
  DocumentUpload: pdf,
  StartApplicationRequest: { applicationXml: xml, documents: [pdf] },
  ProvideDocumentsRequest: { documents: [pdf] },
  ResubmitRequest: { applicationXml: xml },
  AbandonRequest: { reason: 'The client withdrew' },
  SsoLinkRequest: { userName: 'jdoe1042', ip: '203.0.113.7', landing: 'statements' },
  LanguagesRequest: { lang1: 'en', lang2: 'fra' },
  MaintenanceRequest: {
    accountId: 'U1234567',
    firmType: 'advisor',
    functionName: 'updateEmail',
    body: '<Email email="jdoe@example.com"/>',
    requestKey: 'email-change-778',
  },
  RegisterWebhookRequest: { url: 'https://onboarding.example.com/hooks/eca', description: 'Onboarding system' },
  RotateSecretRequest: { keepPreviousFor: '24h' },
  ReplayRequest: { after: '1180-0' },
  SetDeadlinePolicyRequest: { policy: { needsDocuments: stateDeadline, awaitingClient: null } },
  Task: application.pendingTasks[0],
  ApplicationDocument: application.documents[0],
  Application: application,
  StartedApplication: { existed: false, application },
  ApplicationSummary: summary,
  ApplicationPage: {
    applications: [summary],
    cursor: 'CiQKIgogYXBwbGljYXRpb24tQUNNRS1jbGllbnQtMTA0Mg',
  },
  Credentials: {
    externalId: 'client-1042',
    accountId: 'U1234567',
    users: [{ userName: 'jdoe1042', temporaryPassword: 'Tmp-8kQ2-x7Lm' }],
  },
  Problem: {
    type: 'urn:eca-onboarding:problem:invalid-input',
    title: 'An input is invalid',
    status: 400,
    detail: 'body.documents.0.formNumber: is not a form number (digits)',
    instance: '/v1/applications',
    code: 'INVALID_INPUT',
    field: 'body.documents.0.formNumber',
    requestId: 'f3c1d0a2-6b1e-4d7a-9c1f-2e8a5b7d9c01',
  },
  SsoLink: { url: 'https://portal.eca.example.invalid/sso/Login?token=…', expiresAt: '2026-11-02T14:06:09.000Z' },
  StartedRun: { workflowId: 'maintenance-ACME-U1234567-email-change-778', existed: false },
  RunSummary: {
    workflowId: 'maintenance-ACME-U1234567-email-change-778',
    status: 'Completed',
    startTime: AT,
    closeTime: LATER,
    accountId: 'U1234567',
    functionName: 'updateEmail',
    requestStatus: 'Processed',
  },
  RunDetail: {
    workflowId: 'maintenance-ACME-U1234567-email-change-778',
    status: 'Completed',
    startTime: AT,
    closeTime: LATER,
    detail: { requestStatus: 'Processed' },
  },
  Firm: firm,
  FirmKeys: {
    firmPrivateKey: '-----BEGIN PGP PRIVATE KEY BLOCK-----\n…\n-----END PGP PRIVATE KEY BLOCK-----',
    passphrase: '…',
    brokeragePublicKey: '-----BEGIN PGP PUBLIC KEY BLOCK-----\n…\n-----END PGP PUBLIC KEY BLOCK-----',
  },
  ApiKey: apiKey,
  LifecycleEvent: event,
  EventPage: { events: [{ cursor: '1204-3', event }], cursor: '1204-3' },
  WebhookEndpoint: webhook,
  WebhookEndpointList: { endpoints: [webhook] },
  WebhookWithSecret: { endpoint: webhook, secret: 'whsec_MfKQ9r0IYAh1N2CqGkBQzTbZb0ZmRrOz' },
  StateDeadline: stateDeadline,
  DeadlinePolicy: { needsDocuments: stateDeadline },
  EffectiveDeadlinePolicy: effectivePolicy,
  DeadlinePolicyView: {
    policy: { needsDocuments: stateDeadline },
    effective: effectivePolicy,
    defaults: effectivePolicy,
  },
};

/** By operation id: the example of a success whose schema has no component of its own. */
export const OPERATION_EXAMPLES: Record<string, unknown> = {
  health: { status: 'ok' },
  ready: { status: 'ready' },
  listMaintenanceRequests: { runs: [COMPONENT_EXAMPLES.RunSummary] },
  listDailyDocuments: {
    runs: [{ workflowId: 'daily-documents-ACME-2026-11-02', status: 'Running', startTime: AT }],
  },
  listFirms: { firms: [firm] },
  listApiKeys: { keys: [apiKey] },
  createApiKey: { key: 'eca_k7mq2xz4ab3c_3q2b…', record: apiKey },
};

/** By path parameter name, or by the path's first segments and the name where a name means two things. */
export const PARAMETER_EXAMPLES: Record<string, string> = {
  '/v1/api-keys#id': apiKey.id,
  reference: 'client-1042',
  workflowId: 'maintenance-ACME-U1234567-email-change-778',
  userName: 'jdoe1042',
  csid: 'ACME',
  id: 'wh_3kq8n2m5p7r9t4vx',
};
