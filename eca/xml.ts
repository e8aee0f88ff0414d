/**
 * The XML of the service in one place: request files the firm writes (request-xml.ts), response files it reads
 * (report-xml.ts), the application XML (application.ts) and the element tree beneath them (xml-tree.ts).
 */
export type { XmlNode } from './xml-tree.js';
export { parseXmlTree, xmlWellFormednessError } from './xml-tree.js';
export {
  APPLICATION_XML_EXAMPLE,
  CUSTOMER_TYPES,
  DAILY_SUBMISSION_CUSTOMER_TYPES,
  dailySubmissionCovers,
  ENGINE_READS,
  parseApplication,
  parseApplications,
} from './application.js';
export type { CustomerType } from './application.js';
export type { ApplicationSummary } from './application.js';
export * from './request-xml.js';
export * from './report-xml.js';
