/**
 * The part of the TypeScript client generated from docs/openapi.json (typescript-fetch) that
 * test/e2e/contract/typescript-client-run.ts uses. The client itself exists only in the contract test's
 * temporary directory, where the program is compiled against its real types (`tsc --strict`, this module
 * name mapped onto the generated index.ts): these declarations only let the project's own checks read it.
 */
declare module 'eca-onboarding-generated-client' {
  export class Configuration {
    constructor(parameters: { basePath?: string; accessToken?: string });
  }
  export class ResponseError extends Error {
    response: Response;
  }
  export interface DocumentUpload {
    formNumber: string;
    fileName?: string;
    contentBase64: string;
  }
  export interface Task {
    formNumber: string;
    formName: string;
    action: string;
  }
  export interface Application {
    workflowId: string;
    externalId: string;
    lifecycleState: string;
    done: boolean;
    accountId?: string;
    pendingTasks?: Task[];
  }
  export interface LifecycleEvent {
    type: string;
    to?: string;
  }
  export interface EventPageEventsInner {
    cursor: string;
    event: LifecycleEvent;
  }
  export class ApplicationsApi {
    constructor(configuration: Configuration);
    getApplication(parameters: { reference: string }): Promise<Application>;
    startApplication(parameters: {
      startApplicationRequest: { applicationXml: string; documents?: DocumentUpload[] };
    }): Promise<{ existed: boolean; application: Application }>;
    provideDocuments(parameters: {
      reference: string;
      provideDocumentsRequest: { documents: DocumentUpload[] };
    }): Promise<Application>;
  }
  export class EventsApi {
    constructor(configuration: Configuration);
    listApplicationEvents(parameters: {
      reference: string;
      after?: string;
      limit?: number;
    }): Promise<{ events: EventPageEventsInner[]; cursor: string }>;
  }
  export class WebhooksApi {
    constructor(configuration: Configuration);
    registerWebhook(parameters: {
      registerWebhookRequest: { url: string; description?: string; after?: string };
    }): Promise<{ endpoint: { url: string }; secret: string }>;
  }
}
