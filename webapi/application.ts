/**
 * The document's `Application` (the body of `POST /gw/api/v1/accounts`, as `ApplicationPayload.application`)
 * and `AccountManagementRequests` (the body of `PATCH /gw/api/v1/accounts`), as far as the engine writes them:
 * every field it sets typed as the document types it, the others let through. The document marks no field
 * required; what the brokerage needs to open an account (a customer with its type and external id) is
 * checked by the simulator, as the service would answer it.
 *
 * Where the application comes from (the firm's application XML, mapped in one place) is the engine's
 * business: activities/webapi/application-json.ts.
 */
import { z } from 'zod';

/** `AttachedFileType`: the PDF's name, length and SHA-1, as for the XML service. */
export const AttachedFile = z.looseObject({
  fileName: z.string().min(1),
  fileLength: z.number().int().nonnegative(),
  sha1Checksum: z.string().regex(/^[0-9A-Fa-f]{40}$/, 'a SHA-1 in hex'),
});

/** `Document`: a signed form; its PDF in `payload.data` (base64), since the body is JSON, not an archive. */
export const WebApiDocument = z.looseObject({
  formNumber: z.number().int(),
  /** When the client signed, in epoch seconds (the document's int32). */
  execTimestamp: z.number().int(),
  execLoginTimestamp: z.number().int(),
  attachedFile: AttachedFile,
  payload: z.looseObject({ data: z.string().min(1), mimeType: z.string().optional() }).optional(),
  signedBy: z.array(z.string()).optional(),
  externalIndividualId: z.string().optional(),
  externalAccountId: z.string().optional(),
});
export type WebApiDocument = z.infer<typeof WebApiDocument>;

/** `AssociatedIndividual`, as far as the engine fills it. */
export const AssociatedIndividual = z.looseObject({
  externalId: z.string().optional(),
  name: z.looseObject({ first: z.string().optional(), middle: z.string().optional(), last: z.string().optional() }),
  email: z.string().optional(),
  identification: z.record(z.string(), z.unknown()).optional(),
  titles: z.array(z.looseObject({ value: z.string() })).optional(),
});
export type AssociatedIndividual = z.infer<typeof AssociatedIndividual>;

const Holders = z.array(AssociatedIndividual);

/** `Customer`: its type, its external id (the engine's idempotency key), and its holders by type. */
export const WebApiCustomer = z.looseObject({
  type: z.string().min(1),
  externalId: z.string().min(1),
  prefix: z.string().optional(),
  email: z.string().optional(),
  accountHolder: z.looseObject({ accountHolderDetails: Holders }).optional(),
  jointHolders: z.looseObject({ firstHolderDetails: Holders, secondHolderDetails: Holders }).optional(),
  organization: z.looseObject({ associatedEntities: z.looseObject({ associatedIndividuals: Holders }) }).optional(),
  // `TrustApplicant`: its individuals are its trustees (`TrusteesType.individuals`).
  trust: z.looseObject({ trustees: z.looseObject({ individuals: Holders }) }).optional(),
});
export type WebApiCustomer = z.infer<typeof WebApiCustomer>;

/** The document's `inputLanguage` values. */
export const INPUT_LANGUAGES = [
  'en',
  'zh-Hans',
  'ja',
  'ru',
  'fr',
  'pt',
  'es',
  'it',
  'ar-AE',
  'de',
  'he-IL',
  'hu',
] as const;

export const WebApiApplication = z.looseObject({
  customer: WebApiCustomer,
  accounts: z.array(z.looseObject({ externalId: z.string().optional() })).optional(),
  users: z.array(z.looseObject({ externalUserId: z.string().optional(), prefix: z.string().optional() })).optional(),
  documents: z.array(WebApiDocument).optional(),
  inputLanguage: z.enum(INPUT_LANGUAGES).optional(),
});
export type WebApiApplication = z.infer<typeof WebApiApplication>;

/** Every holder of a customer, in order, wherever its type puts them. */
export function holdersOf(customer: WebApiCustomer): AssociatedIndividual[] {
  return [
    ...(customer.accountHolder?.accountHolderDetails ?? []),
    ...(customer.jointHolders?.firstHolderDetails ?? []),
    ...(customer.jointHolders?.secondHolderDetails ?? []),
    ...(customer.organization?.associatedEntities.associatedIndividuals ?? []),
    ...(customer.trust?.trustees.individuals ?? []),
  ];
}

const AccountIdOnly = z.looseObject({ accountId: z.string().min(1) });

const inputLanguage = z.enum(INPUT_LANGUAGES).optional();
const text = z.string().optional();
const flag = z.boolean().optional();
/** A nested object the engine passes on as the firm wrote it: the brokerage checks it. */
const passedOn = z.looseObject({}).optional();
const Questionnaire = z.looseObject({
  formNumber: z.number().int().optional(),
  answers: z.array(z.looseObject({})).optional(),
});

/**
 * The members of `AccountManagementRequests` that account maintenance sends, one per update function of the
 * XML service's tables (webapi/maintenance.ts names which). Each is the firm's JSON; the engine sets its
 * `accountId`. The fields are typed as the document types them; nested objects it passes on are checked by
 * the brokerage. `securityQuestions` names no account: its user is `referenceUserName`.
 */
export const MAINTENANCE_MEMBER_SCHEMAS = {
  accountConfiguration: z.looseObject({ accountId: text, type: text, value: flag }),
  addAdditionalAccount: z.looseObject({
    accountId: text,
    account: passedOn,
    customer: passedOn,
    documents: z.array(WebApiDocument).optional(),
    users: z.array(z.looseObject({})).optional(),
  }),
  changeAccountHolderDetail: z.looseObject({
    accountId: text,
    newAccountHolderDetails: z.array(z.looseObject({})).optional(),
    documents: z.looseObject({ documents: z.array(WebApiDocument).optional(), inputLanguage }).optional(),
    inputLanguage,
    referenceUserName: text,
    translation: flag,
  }),
  changeBaseCurrency: z.looseObject({ accountId: text, newBaseCurrency: z.string().min(1) }),
  completeLoginMessage: z.looseObject({ accountId: text, loginMessageIds: z.array(z.number().int()).min(1) }),
  securityQuestions: z.looseObject({
    referenceUserName: z.string().min(1),
    details: z.array(z.looseObject({ question: text, answer: text })).min(1),
    inputLanguage,
  }),
  updateBcan: z.looseObject({ accountId: text, bcan: text, ceNumber: text }),
  updateCredentials: z.looseObject({
    accountId: text,
    referenceUserName: text,
    updateEmail: z.looseObject({ email: text, access: flag }).optional(),
    updatePassword: passedOn,
  }),
  updateExternalId: z.looseObject({ accountId: text, newExternalId: z.string().min(1) }),
  updateWithholdingStatement: z.looseObject({
    accountId: text,
    certW8Imy: flag,
    effectiveDate: text,
    fatcaCompliantType: z.enum(['FATCA_COMPLIANT', 'NON_CONSENTING_US_ACCOUNT', 'NON_COOPERATIVE_ACCOUNT']).optional(),
    treatyCountry: text,
    usIncomeTax: flag,
  }),
  updateTaxForm: z.looseObject({
    accountId: text,
    documents: z.array(WebApiDocument).optional(),
    inputLanguage,
    translation: flag,
    w8Ben: passedOn,
    w8BenE: passedOn,
    w9: passedOn,
  }),
  prohibitedCountryQuestionnaire: z.looseObject({
    accountId: text,
    prohibitedQuestionnaireDetails: z
      .array(
        z.looseObject({
          code: z.enum([
            'PASSPORT',
            'CITIZENSHIP',
            'BUSINESSDEALINGS',
            'FINANCIALACCOUNTS',
            'RESIDENT',
            'MULTI',
            'BIRTH',
          ]),
          status: flag,
          details: text,
        }),
      )
      .min(1),
  }),
  questionnaires: z.looseObject({ accountId: text, questionnaire: z.array(Questionnaire).min(1) }),
  quizQuestionnaires: z.looseObject({
    accountId: text,
    questionnaire: z.array(Questionnaire).optional(),
    task: z.array(z.looseObject({ formNumber: z.number().int().optional(), status: flag })).optional(),
  }),
} as const;

export type MaintenanceMember = keyof typeof MAINTENANCE_MEMBER_SCHEMAS;

const maintenanceMembers = Object.fromEntries(
  Object.entries(MAINTENANCE_MEMBER_SCHEMAS).map(([member, schema]) => [member, schema.optional()]),
) as { [K in MaintenanceMember]: z.ZodOptional<(typeof MAINTENANCE_MEMBER_SCHEMAS)[K]> };

/**
 * `AccountManagementRequests`: the three the application lifecycle sends and the ones maintenance sends (each
 * property is one object, as the document has it).
 */
export const AccountManagementRequests = z.looseObject({
  abandonAccount: AccountIdOnly.optional(),
  resetAbandonedAccount: AccountIdOnly.optional(),
  documentSubmission: z
    .looseObject({
      accountId: z.string().min(1),
      documents: z.array(WebApiDocument).min(1),
      inputLanguage: z.enum(INPUT_LANGUAGES).optional(),
    })
    .optional(),
  ...maintenanceMembers,
});
export type AccountManagementRequests = z.infer<typeof AccountManagementRequests>;

/** `ProcessDocuments`: the day's agreements and disclosures. */
export const ProcessDocuments = z.looseObject({
  documents: z.array(WebApiDocument).min(1),
  inputLanguage: z.enum(INPUT_LANGUAGES).optional(),
});
export type ProcessDocuments = z.infer<typeof ProcessDocuments>;

/**
 * The signed bodies, each the document's `…Payload` of its operation: `ApplicationPayload` (create),
 * `AccountManagementRequestsPayload` (PATCH accounts), `ProcessDocumentsPayload` (the day's agreements).
 */
export const ApplicationPayload = z.looseObject({ application: WebApiApplication });
export const AccountManagementRequestsPayload = z.looseObject({ accountManagementRequests: AccountManagementRequests });
export const ProcessDocumentsPayload = z.looseObject({ processDocuments: ProcessDocuments });

/** `CreateBrowserSessionRequest`: the end user (their user name) and the one IP the session opens from. */
export const CreateBrowserSessionRequest = z.looseObject({ credential: z.string().min(1), ip: z.string().min(1) });
export type CreateBrowserSessionRequest = z.infer<typeof CreateBrowserSessionRequest>;
